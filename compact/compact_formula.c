/*
 * Interned formulas and constructor messages (compact_formula.h): two fixed
 * arrays of slots, each behind its own lock, searched by hash. The arrays are
 * static, so a predicate's pointer into them is always safe to compare; the
 * serial in the predicate says whether the slot still holds its entry.
 *
 * Formulas: a slot in use by a call (refs > 0) is never evicted; beyond
 * GP_CACHED_FORMULAS the least recently used idle one gives way, and beyond
 * GP_COMPILED_FORMULAS compiled formulas the least recently used idle one
 * loses its kernels (compiled again when next used). Messages: a ring, the
 * oldest gives way.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "compact_formula.h"

/* FNV-1a over the type and the text. */
static uint64_t hash_key(int32_t type, const char *key) {
  uint64_t h = 0xcbf29ce484222325ull ^ (uint32_t)type;
  for (const unsigned char *p = (const unsigned char *)key; *p; p++) h = (h ^ *p) * 0x100000001b3ull;
  return h;
}

/* ------------------------------------------------------------- formulas */

typedef struct {
  gp_formula formula; /* first: a predicate's pointer is &slot->formula */
  uint64_t serial;    /* 0: empty */
  uint64_t hash;
  uint64_t last_use;  /* the tick of its last intern or acquire */
  int refs;           /* calls using it now */
  bool compiled;      /* counted in compiled_count: idle with kernels */
} formula_slot;

static formula_slot formula_slots[GP_CACHED_FORMULAS];
static uint64_t formula_serials, formula_ticks;
static int compiled_count;
static pthread_mutex_t formulas_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t release_hook_once = PTHREAD_ONCE_INIT;

/* The slot's kernels go (formulas_lock held, slot idle). */
static void forget_kernels(formula_slot *slot) {
  if (slot->compiled) compiled_count--;
  slot->compiled = false;
#if GPUPRIM_HAVE_CUDA
  if (slot->formula.cuda_cache) gp_compact_nvrtc_forget(slot->formula.cuda_cache);
#endif
  slot->formula.cuda_cache = NULL;
}

/* Empties an idle slot (formulas_lock held). */
static void evict(formula_slot *slot) {
  forget_kernels(slot);
  gp_expr_free(slot->formula.expr);
  memset(slot, 0, sizeof *slot);
}

/* An empty slot, else the least recently used idle one emptied; NULL when
 * every slot is in use by a call. */
static formula_slot *free_slot(void) {
  formula_slot *oldest = NULL;
  for (int i = 0; i < GP_CACHED_FORMULAS; i++) {
    formula_slot *s = &formula_slots[i];
    if (s->serial == 0) return s;
    if (s->refs == 0 && (!oldest || s->last_use < oldest->last_use)) oldest = s;
  }
  if (oldest) evict(oldest);
  return oldest;
}

static formula_slot *find_formula(uint64_t h, gpu_dtype type, const char *key) {
  for (int i = 0; i < GP_CACHED_FORMULAS; i++) {
    formula_slot *s = &formula_slots[i];
    if (s->serial && s->hash == h && s->formula.type == type &&
        strcmp(gp_expr_canonical(s->formula.expr), key) == 0)
      return s;
  }
  return NULL;
}

/* gpu_release_cached_memory: every idle formula and kept message goes. */
static void release_all_messages(void);
static void release_all(void) {
  pthread_mutex_lock(&formulas_lock);
  for (int i = 0; i < GP_CACHED_FORMULAS; i++)
    if (formula_slots[i].serial && formula_slots[i].refs == 0) evict(&formula_slots[i]);
  pthread_mutex_unlock(&formulas_lock);
  release_all_messages();
}

static void register_release_hook(void) { gp_on_release_cached(release_all); }

gpu_status gp_formula_intern(gp_expr *e, const gp_formula **out, uint64_t *serial) {
  pthread_once(&release_hook_once, register_release_hook);
  const gpu_dtype type = gp_expr_dtype(e);
  const char *key = gp_expr_canonical(e);
  const uint64_t h = hash_key((int32_t)type, key);
  pthread_mutex_lock(&formulas_lock);
  formula_slot *slot = find_formula(h, type, key);
  const bool found = slot != NULL;
  if (!found && (slot = free_slot()) != NULL) {
    slot->formula = (gp_formula){.type = type, .expr = e, .cuda_cache = NULL};
    slot->serial = ++formula_serials;
    slot->hash = h;
  }
  if (slot) slot->last_use = ++formula_ticks;
  *out = slot ? &slot->formula : NULL;
  *serial = slot ? slot->serial : 0;
  pthread_mutex_unlock(&formulas_lock);
  if (found || !slot) gp_expr_free(e);
  if (!slot)
    return gp_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_pred_expr: all %d cached formulas are in use by calls",
                   GP_CACHED_FORMULAS);
  return GPU_OK;
}

/* The slot f points into, or NULL when it points elsewhere. */
static formula_slot *slot_of(const gp_formula *f) {
  uintptr_t p = (uintptr_t)f, first = (uintptr_t)formula_slots;
  if (p < first || p >= first + sizeof formula_slots || (p - first) % sizeof(formula_slot) != 0) return NULL;
  return &formula_slots[(p - first) / sizeof(formula_slot)];
}

gpu_status gp_formula_acquire(const char *fn, const gp_formula *f, uint64_t serial) {
  formula_slot *slot = slot_of(f);
  bool held = false;
  pthread_mutex_lock(&formulas_lock);
  if (slot && serial && slot->serial == serial) {
    if (slot->compiled) compiled_count--; /* in use: not counted as idle */
    slot->compiled = false;
    slot->refs++;
    slot->last_use = ++formula_ticks;
    held = true;
  }
  pthread_mutex_unlock(&formulas_lock);
  if (held) return GPU_OK;
  return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                 "%s: pred's formula is no longer cached (gpu_release_cached_memory, or more than %d "
                 "newer formulas since): make the predicate again with gpu_pred_expr",
                 fn, GP_CACHED_FORMULAS);
}

/* Idle compiled formulas beyond the bound lose their kernels, least recently
 * used first (formulas_lock held). */
static void trim_compiled(void) {
  while (compiled_count > GP_COMPILED_FORMULAS) {
    formula_slot *oldest = NULL;
    for (int i = 0; i < GP_CACHED_FORMULAS; i++) {
      formula_slot *s = &formula_slots[i];
      if (s->compiled && (!oldest || s->last_use < oldest->last_use)) oldest = s;
    }
    forget_kernels(oldest);
  }
}

void gp_formula_release(const gp_formula *f) {
  formula_slot *slot = slot_of(f);
  if (!slot) return;
  pthread_mutex_lock(&formulas_lock);
  /* The last call out counts its kernels: no call compiles them now. */
  if (--slot->refs == 0 && slot->formula.cuda_cache) {
    slot->compiled = true;
    compiled_count++;
    trim_compiled();
  }
  pthread_mutex_unlock(&formulas_lock);
}

/* ------------------------------------------------------------- messages */

typedef struct {
  uint64_t serial; /* 0: empty */
  uint64_t hash;
  char *text;
} message_slot;

static message_slot message_slots[GP_KEPT_MESSAGES];
static uint64_t message_serials;
static size_t next_message; /* the ring's oldest slot */
static pthread_mutex_t messages_lock = PTHREAD_MUTEX_INITIALIZER;

static void release_all_messages(void) {
  pthread_mutex_lock(&messages_lock);
  for (int i = 0; i < GP_KEPT_MESSAGES; i++) {
    free(message_slots[i].text);
    memset(&message_slots[i], 0, sizeof message_slots[i]);
  }
  next_message = 0;
  pthread_mutex_unlock(&messages_lock);
}

const void *gp_pred_message_intern(const char *message, uint64_t *serial) {
  pthread_once(&release_hook_once, register_release_hook);
  size_t bytes = strnlen(message, GP_MESSAGE_BYTES - 1) + 1;
  char *copy = malloc(bytes);
  if (!copy) return NULL;
  memcpy(copy, message, bytes - 1);
  copy[bytes - 1] = '\0';
  const uint64_t h = hash_key(0, copy);
  message_slot *slot = NULL;
  pthread_mutex_lock(&messages_lock);
  for (int i = 0; i < GP_KEPT_MESSAGES && !slot; i++)
    if (message_slots[i].serial && message_slots[i].hash == h && strcmp(message_slots[i].text, copy) == 0)
      slot = &message_slots[i];
  if (slot) {
    free(copy);
  } else {
    slot = &message_slots[next_message];
    next_message = (next_message + 1) % GP_KEPT_MESSAGES;
    free(slot->text);
    *slot = (message_slot){++message_serials, h, copy};
  }
  *serial = slot->serial;
  pthread_mutex_unlock(&messages_lock);
  return slot;
}

bool gp_pred_message_copy(const void *entry, uint64_t serial, char *buf, size_t size) {
  uintptr_t p = (uintptr_t)entry, first = (uintptr_t)message_slots;
  if (p < first || p >= first + sizeof message_slots || (p - first) % sizeof(message_slot) != 0 || !serial)
    return false;
  const message_slot *slot = &message_slots[(p - first) / sizeof(message_slot)];
  bool kept = false;
  pthread_mutex_lock(&messages_lock);
  if (slot->serial == serial) {
    snprintf(buf, size, "%s", slot->text);
    kept = true;
  }
  pthread_mutex_unlock(&messages_lock);
  return kept;
}
