"""Measuring a model or a training setup: evaluation tables and cross-validation.

:mod:`~treegen.analysis.evaluate` prints Release 8's evaluation block and
confusion matrix for a model on data; :mod:`~treegen.analysis.cv` estimates
the error of training by stratified k-fold or leave-one-out.
"""
