"""The ensemble kind: forests and boosted trees (scikit-learn's), compiled exactly.

:mod:`~.core` is the value (trees whose float64 leaf values are summed in estimator
order, then decided), :mod:`~.classify` its arithmetic in numpy, :mod:`~.sklearn` and
:mod:`~.sklearn_hist` the importers of fitted estimators; the file, the printing, the C
and verify's side are the other modules, bound into the registry by
:mod:`treegen.kinds.ensemble`.
"""
