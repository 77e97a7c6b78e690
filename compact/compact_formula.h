/*
 * The process-wide tables behind the predicate constructors: parsed formulas
 * interned per (type, canonical text), and the messages of constructors that
 * failed, kept so that gpu_compact can repeat them later (gpu_last_error() is
 * per thread and is overwritten by the next failure). Thread-safe. Entries
 * live as long as the process: a gpu_pred may point at one at any time.
 */
#ifndef GP_COMPACT_FORMULA_H
#define GP_COMPACT_FORMULA_H

#include "compact_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Takes e (parsed and type-checked) and sets *out to the one formula of its
 * (type, canonical text): a new entry holding e, or an existing one, in which
 * case e is freed. On OUT_OF_MEMORY (message recorded) e is freed too. */
gpu_status gp_formula_intern(gp_expr *e, const gp_formula **out);

/* A copy of message that lives as long as the process, the same pointer for
 * the same text; NULL once the table is full (a few thousand messages) or
 * when memory runs out. */
const char *gp_pred_message_intern(const char *message);

#ifdef __cplusplus
}
#endif

#endif /* GP_COMPACT_FORMULA_H */
