/* The walk's set of SameRule keys (rwalk.c): each rule's key (int32s: the class, then
 * each kept condition's test key) once, with the highest error rate of the leaves that
 * gave it, so that a leaf repeating an earlier rule goes back to Python no more
 * (paths._repeats' check, done here: at 100k rows 12,214 of 31,402 leaves).  The walk's
 * memo of PruneRule's states is a second such set (tg_keys_seen).  Open addressing over
 * a power-of-two table at most half full; the keys in one arena. */
#include "crules.h"

void tg_keys_free(KeySet *s)
{
    PyMem_Free(s->arena);
    PyMem_Free(s->at);
    PyMem_Free(s->len);
    PyMem_Free(s->err);
    PyMem_Free(s->slot);
    memset(s, 0, sizeof *s);
}

/* A multiplicative hash of the key's ints, its high half folded into the low one (the
 * table's slot is the low bits). */
static uint64_t key_hash(const int32_t *key, Py_ssize_t len)
{
    uint64_t h = (uint64_t)len;
    for (Py_ssize_t i = 0; i < len; i++)
        h = (h ^ (uint32_t)key[i]) * 0x9E3779B97F4A7C15u;
    return h ^ (h >> 29) ^ (h >> 47);
}

/* Rule r's slot: the first free one from its hash (the table has one). */
static size_t free_slot(const KeySet *s, uint64_t h)
{
    size_t i = (size_t)h & (s->slots - 1);
    while (s->slot[i] != 0)
        i = (i + 1) & (s->slots - 1);
    return i;
}

/* The table doubled (or made: 1,024 slots), every rule put back. 0, or -1 (no memory). */
static int grow_table(KeySet *s)
{
    const size_t slots = s->slots == 0 ? 1024 : 2 * s->slots;
    Py_ssize_t *table = PyMem_Calloc(slots, sizeof(Py_ssize_t));
    if (table == NULL)
        return -1;
    PyMem_Free(s->slot);
    s->slot = table;
    s->slots = slots;
    for (Py_ssize_t r = 0; r < s->rules; r++)
        s->slot[free_slot(s, key_hash(s->arena + s->at[r], s->len[r]))] = r + 1;
    return 0;
}

/* Room for one rule more and len ints more in the arena. 0, or -1 (no memory). */
static int make_room(KeySet *s, Py_ssize_t len)
{
    if (s->used + len > s->arena_cap) {
        const Py_ssize_t cap = 2 * (s->used + len) + 256;
        int32_t *arena = PyMem_Realloc(s->arena, (size_t)cap * sizeof(int32_t));
        if (arena == NULL)
            return -1;
        s->arena = arena;
        s->arena_cap = cap;
    }
    if (s->rules == s->rules_cap) {
        const Py_ssize_t cap = 2 * s->rules + 256;
        Py_ssize_t *at = PyMem_Realloc(s->at, (size_t)cap * sizeof(Py_ssize_t));
        if (at == NULL)
            return -1;
        s->at = at;
        Py_ssize_t *len_of = PyMem_Realloc(s->len, (size_t)cap * sizeof(Py_ssize_t));
        if (len_of == NULL)
            return -1;
        s->len = len_of;
        double *err = PyMem_Realloc(s->err, (size_t)cap * sizeof(double));
        if (err == NULL)
            return -1;
        s->err = err;
        s->rules_cap = cap;
    }
    if (2 * ((size_t)s->rules + 1) > s->slots)
        return grow_table(s);
    return 0;
}

/* The rule whose key is key (len ints, hash h), or -1. */
static Py_ssize_t find(const KeySet *s, const int32_t *key, Py_ssize_t len, uint64_t h)
{
    if (s->slots == 0)
        return -1;
    for (size_t i = (size_t)h & (s->slots - 1); s->slot[i] != 0; i = (i + 1) & (s->slots - 1)) {
        const Py_ssize_t r = s->slot[i] - 1;
        if (s->len[r] == len && memcmp(s->arena + s->at[r], key, (size_t)len * sizeof(int32_t)) == 0)
            return r;
    }
    return -1;
}

/* key (len ints, hash h) added as a new rule of rate err. 0, or -1 (no memory). */
static int insert(KeySet *s, const int32_t *key, Py_ssize_t len, uint64_t h, double err)
{
    if (make_room(s, len) < 0)
        return -1;
    const Py_ssize_t r = s->rules++;
    s->at[r] = s->used;
    s->len[r] = len;
    s->err[r] = err;
    memcpy(s->arena + s->used, key, (size_t)len * sizeof(int32_t));
    s->used += len;
    s->slot[free_slot(s, h)] = r + 1;
    return 0;
}

Py_ssize_t tg_keys_add(KeySet *s, const int32_t *key, Py_ssize_t len, double err)
{
    const uint64_t h = key_hash(key, len);
    const Py_ssize_t r = find(s, key, len, h);
    if (r >= 0) {
        if (err > s->err[r]) /* the earlier rule keeps the higher rate */
            s->err[r] = err;
        return r;
    }
    if (insert(s, key, len, h, err) < 0) {
        PyErr_NoMemory();
        return -2;
    }
    return -1;
}

/* Whether key (len ints) is in s already: 1; else it is added (a rule of rate 0) and 0,
 * or, wanting memory, left out and 0 (the walk's state memo is a shortcut only). */
int tg_keys_seen(KeySet *s, const int32_t *key, Py_ssize_t len)
{
    const uint64_t h = key_hash(key, len);
    if (find(s, key, len, h) >= 0)
        return 1;
    (void)insert(s, key, len, h, 0.0);
    return 0;
}

/* s emptied, its memory kept. */
void tg_keys_clear(KeySet *s)
{
    s->used = 0;
    s->rules = 0;
    if (s->slots > 0)
        memset(s->slot, 0, s->slots * sizeof(Py_ssize_t));
}
