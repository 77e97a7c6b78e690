/*
 * The process-wide tables behind the predicate constructors: parsed formulas
 * interned per (type, canonical text), and the messages of constructors that
 * failed, kept so that gpu_compact can repeat them later (gpu_last_error() is
 * per thread and is overwritten by the next failure). Thread-safe.
 *
 * Both tables are bounded. A gpu_pred is a value with no destructor, so it
 * names its entry by slot and serial number: the slot's memory is never
 * freed, and a serial is never reused, so a predicate whose entry was
 * evicted (the least recently used beyond the bound, or all unused ones at
 * gpu_release_cached_memory) is recognised as such instead of followed.
 */
#ifndef GP_COMPACT_FORMULA_H
#define GP_COMPACT_FORMULA_H

#include "compact_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many formulas stay parsed (about 2.7 KB each), and at most
 * GP_COMPILED_FORMULAS of them keep their NVRTC-compiled kernels. */
enum { GP_CACHED_FORMULAS = 1024, GP_COMPILED_FORMULAS = 64 };

/* Takes e (parsed and type-checked) and sets *out to the one formula of its
 * (type, canonical text), and *serial to its entry's serial: a new entry
 * holding e, or an existing one, in which case e is freed. On OUT_OF_MEMORY
 * (message recorded) e is freed too. */
gpu_status gp_formula_intern(gp_expr *e, const gp_formula **out, uint64_t *serial);

/* Holds f for a call (it is not evicted until gp_formula_release): GPU_OK
 * when f is still the entry of that serial, else INVALID_ARGUMENT with a
 * message that says to make the predicate again. */
gpu_status gp_formula_acquire(const char *fn, const gp_formula *f, uint64_t serial);
void gp_formula_release(const gp_formula *f);

/* Keeps a copy of message (at most 1 KiB is kept) for a failed constructor;
 * returns its entry and sets *serial, or NULL when memory runs out. The
 * oldest of GP_KEPT_MESSAGES gives way to a new one. */
enum { GP_KEPT_MESSAGES = 4096, GP_MESSAGE_BYTES = 1024 };
const void *gp_pred_message_intern(const char *message, uint64_t *serial);
/* Copies the message of entry (serial) into buf; false when it gave way. */
bool gp_pred_message_copy(const void *entry, uint64_t serial, char *buf, size_t size);

#if GPUPRIM_HAVE_CUDA
/* compact_nvrtc.cu: unloads and frees a formula's compiled kernels. */
void gp_compact_nvrtc_forget(void *cuda_cache);
#endif

#ifdef __cplusplus
}
#endif

#endif /* GP_COMPACT_FORMULA_H */
