"""C4.5's rule generator (c4.5rules): rulesets from a tree, how they classify, printing."""
