"""C4.5's rule generator (c4.5rules): rulesets made from a tree, how they classify, their file and printing."""
