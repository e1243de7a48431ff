"""Mondrian-family forests: numba kernels behind scikit-learn estimators."""

from mondrian import _former_paths
from mondrian.amf import AMFClassifier, AMFRegressor
from mondrian.bsp import OnlineBSPForestClassifier, OnlineBSPForestRegressor
from mondrian.forest import MondrianForestClassifier, MondrianForestRegressor
from mondrian.orf import OnlineRandomForestClassifier
from mondrian.partition import MondrianPartitionForestClassifier, MondrianPartitionForestRegressor
from mondrian.tree import MondrianTree, sample_mondrian

_former_paths.install()  # models pickled before the families' folders load; mondrian.hull still imports

__all__ = [
    "AMFClassifier",
    "AMFRegressor",
    "MondrianForestClassifier",
    "MondrianForestRegressor",
    "MondrianPartitionForestClassifier",
    "MondrianPartitionForestRegressor",
    "MondrianTree",
    "OnlineBSPForestClassifier",
    "OnlineBSPForestRegressor",
    "OnlineRandomForestClassifier",
    "sample_mondrian",
]
__version__ = "0.1.0"
