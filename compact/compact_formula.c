/*
 * Interned formulas and constructor messages (compact_formula.h): two hash
 * tables with open addressing, each behind its own lock. Entries are never
 * removed, so a pointer handed out stays valid; the tables stay reachable
 * from their static roots until the process ends.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "compact_formula.h"

typedef struct {
  uint64_t hash;
  int32_t type;
  const char *key; /* NULL: an empty slot */
  void *value;
} intern_slot;

typedef struct {
  intern_slot *slots;
  size_t capacity, count; /* capacity: 0 or a power of two, at most half full */
} intern_table;

/* FNV-1a over the type and the text. */
static uint64_t hash_key(int32_t type, const char *key) {
  uint64_t h = 0xcbf29ce484222325ull ^ (uint32_t)type;
  for (const unsigned char *p = (const unsigned char *)key; *p; p++) h = (h ^ *p) * 0x100000001b3ull;
  return h;
}

/* The slot holding (type, key), or the empty slot where it belongs.
 * The table must have a capacity. */
static intern_slot *find_slot(const intern_table *t, uint64_t h, int32_t type, const char *key) {
  const size_t wrap = t->capacity - 1;
  for (size_t i = h & wrap;; i = (i + 1) & wrap) {
    intern_slot *s = &t->slots[i];
    if (!s->key || (s->hash == h && s->type == type && strcmp(s->key, key) == 0)) return s;
  }
}

/* Room for one more entry (doubling keeps lookups short); false when memory runs out. */
static bool reserve_one(intern_table *t) {
  if (2 * (t->count + 1) <= t->capacity) return true;
  size_t capacity = t->capacity ? 2 * t->capacity : 64;
  intern_table grown = {calloc(capacity, sizeof(intern_slot)), capacity, t->count};
  if (!grown.slots) return false;
  for (size_t i = 0; i < t->capacity; i++) {
    const intern_slot *s = &t->slots[i];
    if (s->key) *find_slot(&grown, s->hash, s->type, s->key) = *s;
  }
  free(t->slots);
  *t = grown;
  return true;
}

/* ------------------------------------------------------------- formulas */

static intern_table formulas;
static pthread_mutex_t formulas_lock = PTHREAD_MUTEX_INITIALIZER;

gpu_status gp_formula_intern(gp_expr *e, const gp_formula **out) {
  /* The key is the canonical text owned by the entry's expression. */
  const gpu_dtype type = gp_expr_dtype(e);
  const char *key = gp_expr_canonical(e);
  const uint64_t h = hash_key((int32_t)type, key);
  gp_formula *found = NULL;
  bool added = false;
  pthread_mutex_lock(&formulas_lock);
  if (reserve_one(&formulas)) {
    intern_slot *slot = find_slot(&formulas, h, (int32_t)type, key);
    if (slot->key) {
      found = slot->value;
    } else if ((found = malloc(sizeof *found)) != NULL) {
      *found = (gp_formula){.type = type, .expr = e, .cuda_cache = NULL};
      *slot = (intern_slot){h, (int32_t)type, key, found};
      formulas.count++;
      added = true;
    }
  }
  pthread_mutex_unlock(&formulas_lock);
  if (!added) gp_expr_free(e);
  *out = found;
  if (!found) return gp_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_pred_expr: no memory for the formula cache");
  return GPU_OK;
}

/* ------------------------------------------------------------- messages */

/* Enough for every distinct mistake a program makes; a program that makes
 * more (generated formulas, say) gets a shorter message from gpu_compact
 * instead of an ever-growing table. Messages are at most 1 KiB. */
enum { MAX_MESSAGES = 4096 };

static intern_table messages;
static pthread_mutex_t messages_lock = PTHREAD_MUTEX_INITIALIZER;

const char *gp_pred_message_intern(const char *message) {
  const uint64_t h = hash_key(0, message);
  const char *kept = NULL;
  pthread_mutex_lock(&messages_lock);
  if (messages.count < MAX_MESSAGES && reserve_one(&messages)) {
    intern_slot *slot = find_slot(&messages, h, 0, message);
    if (slot->key) {
      kept = slot->key;
    } else {
      size_t bytes = strlen(message) + 1;
      char *copy = malloc(bytes);
      if (copy) {
        memcpy(copy, message, bytes);
        *slot = (intern_slot){h, 0, copy, copy};
        messages.count++;
        kept = copy;
      }
    }
  } else if (messages.capacity) {
    /* Full: a message seen before is still found. */
    intern_slot *slot = find_slot(&messages, h, 0, message);
    kept = slot->key;
  }
  pthread_mutex_unlock(&messages_lock);
  return kept;
}
