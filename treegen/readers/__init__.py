"""Data readers: C4.5 (.names/.data/.test), ARFF and CSV -> one Dataset (in progress)."""
