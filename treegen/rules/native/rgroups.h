/* The subset climb's groups of rules (rgroups.c, used by rclimb.c): each rule in the
 * group of its key (chosen or not, its right and wrong cases), the groups in a table
 * by key, and the toggles that move rules between them.
 *
 * A rule's change of cost depends on the subset and on the rule's key and theory bits
 * only: the rules of one key share their exception bits, and within a key the change
 * is monotone in the bits.  Toggling a rule changes the keys of the rules that share
 * its cases only, which move between groups. */
#ifndef TREEGEN_RGROUPS_H
#define TREEGEN_RGROUPS_H

#include "crules.h" /* Python.h first */
#include "rtheory.h"

/* A group's rules are a binary heap, its top the rule of the extreme bits (the largest
 * of a chosen key, the smallest of another; of equal bits the lowest rule): a step
 * reads the extreme at the top, and the first rule reaching the largest change is
 * found among the rules reaching it alone (their change is monotone in the bits, so
 * no rule below one that falls short reaches it). */
typedef struct {
    uint64_t key;
    int32_t count, live_at;
    int32_t *heap, cap; /* the group's rules (count of cap), kept across rebuilds */
    float ex;         /* while not live (a live group's are its slot's) */
    int64_t ex_epoch; /* the counts' epoch ex was worked out for (-1: none) */
} Group;

/* A case as the climb's toggles read it, in one 16-byte entry (one cache line a case
 * instead of four: coverage, XOR, class and case_ptr): how many chosen rules fire on
 * it, with its class's flag in the top bit (coverage is at most the number of rules,
 * below 2^31), the XOR of their numbers, and where its rules start in case_rules
 * (case_ptr[c]; the next entry's is where they end, one more entry at the end).  Made
 * from the search's arrays when the climb starts and written back to them (coverage
 * and XOR) when it ends. */
typedef struct {
    uint32_t cov_pos;
    int32_t xor;
    int64_t rules;
} CaseState;

#define COV_MASK 0x7FFFFFFFu

typedef struct {
    Search *s;
    CaseState *cases; /* per case, while the climb runs (the search's arrays meanwhile stale) */
    Py_ssize_t m;
    const float *bits;
    Group *g;
    Py_ssize_t n_groups, cap_groups;
    int32_t *table; /* open addressing: group index + 1, 0 empty */
    Py_ssize_t table_size;
    int32_t *group_of, *pos, *live, *stamp, *touched; /* pos: a rule's place in its heap */
    /* per live slot (live[i]'s group): what a step's scan for the largest change reads,
     * side by side (not through the group and its heap): chosen key or not, the
     * exception bits and their epoch, the top rule's bits */
    char *live_in;
    uint64_t *live_key;
    float *live_ex, *live_top;
    int64_t *live_epoch;
    int32_t *stack;                                   /* the search of a heap's top rules */
    TheorySum theory; /* the chosen rules' bits summed in rule order (rtheory.h) */
    Py_ssize_t n_live, n_touched, n_chosen;
    int32_t clock;
    int cases_made; /* the cases' entries made (the search's arrays stale meanwhile) */
} Groups;

static inline uint64_t key_of(const Search *s, Py_ssize_t r)
{
    return ((uint64_t)(s->chosen[r] != 0) << 62) | ((uint64_t)s->right[r] << 31) |
           (uint64_t)s->wrong[r];
}

static inline int chosen_key(uint64_t k)
{
    return (int)(k >> 62);
}

static inline int64_t key_right(uint64_t k)
{
    return (int64_t)((k >> 31) & 0x7FFFFFFFu);
}

static inline int64_t key_wrong(uint64_t k)
{
    return (int64_t)(k & 0x7FFFFFFFu);
}

/* The groups of the search s's rules (bits: their theory bits) and its cases' entries,
 * from its arrays: 0, or -1 out of memory (groups_free frees what was made). */
int tg_groups_init(Groups *G, Search *s, const float *bits, Py_ssize_t m, Py_ssize_t n);

/* The cases' coverage and chosen XOR written back to the search (when the entries were
 * made), and everything freed. */
void tg_groups_free(Groups *G, Py_ssize_t n);

/* Rule r toggled: the search's state, the theory sums and the groups.  0, or -1 out of
 * memory. */
int tg_toggle_grouped(Groups *G, Py_ssize_t r);

#endif
