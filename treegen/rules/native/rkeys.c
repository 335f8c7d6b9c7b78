/* The walk's set of SameRule keys (rwalk.c): each rule's key (int32s: the class, then
 * each kept condition's test key) once, with the highest error rate of the leaves that
 * gave it, so that a leaf repeating an earlier rule goes back to Python no more
 * (paths._repeats' check, done here: at 100k rows 12,214 of 31,402 leaves). Open
 * addressing over a power-of-two table at most half full; the keys in one arena. */
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

/* FNV-1a over the key's bytes. */
static uint64_t key_hash(const int32_t *key, Py_ssize_t len)
{
    uint64_t h = 1469598103934665603u;
    const unsigned char *b = (const unsigned char *)key;
    for (Py_ssize_t i = 0; i < len * (Py_ssize_t)sizeof(int32_t); i++) {
        h ^= b[i];
        h *= 1099511628211u;
    }
    return h;
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

Py_ssize_t tg_keys_add(KeySet *s, const int32_t *key, Py_ssize_t len, double err)
{
    if (s->slots > 0) {
        const uint64_t h = key_hash(key, len);
        for (size_t i = (size_t)h & (s->slots - 1); s->slot[i] != 0;
             i = (i + 1) & (s->slots - 1)) {
            const Py_ssize_t r = s->slot[i] - 1;
            if (s->len[r] == len &&
                memcmp(s->arena + s->at[r], key, (size_t)len * sizeof(int32_t)) == 0) {
                if (err > s->err[r]) /* the earlier rule keeps the higher rate */
                    s->err[r] = err;
                return r;
            }
        }
    }
    if (make_room(s, len) < 0) {
        PyErr_NoMemory();
        return -2;
    }
    const Py_ssize_t r = s->rules++;
    s->at[r] = s->used;
    s->len[r] = len;
    s->err[r] = err;
    memcpy(s->arena + s->used, key, (size_t)len * sizeof(int32_t));
    s->used += len;
    s->slot[free_slot(s, key_hash(key, len))] = r + 1;
    return -1;
}
