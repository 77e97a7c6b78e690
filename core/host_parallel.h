/*
 * Host backend: when a call is worth an OpenMP thread team.
 *
 * Waking a team and waiting for it at the end of a parallel region costs tens
 * of microseconds on an idle machine, and where other processes hold the
 * cores, OpenMP threads that spin-wait for a descheduled partner cost
 * milliseconds. So a call with little work runs on the calling thread alone
 * (the parallel regions' `if` clauses or num_threads(1)) and never wakes the
 * team. Every host loop cuts its work into the same chunks, combined in the
 * same order, whatever the team, so the results (float bits included) do not
 * depend on this choice.
 */
#ifndef GP_HOST_PARALLEL_H
#define GP_HOST_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>

/* Work (elements read, or a matrix's rows plus entries) below which a host
 * backend call runs serially: about a quarter of a millisecond on one core. */
enum { GP_HOST_PARALLEL_WORK = 1 << 18 };

/* Whether a host backend call with this much work may use a thread team. */
static inline bool gp_host_parallel(size_t work) { return work >= GP_HOST_PARALLEL_WORK; }

#endif /* GP_HOST_PARALLEL_H */
