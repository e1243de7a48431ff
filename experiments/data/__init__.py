"""Datasets for the harness: the catalog (``datasets/*.yaml``), its loaders, and the Dataset value they return."""

from hydra.utils import instantiate
from omegaconf import DictConfig

from experiments.data.dataset import Dataset
from experiments.data.fetch import DatasetUnavailable, load


def load_dataset(cfg: DictConfig) -> Dataset:
    """Call the loader that ``cfg.load`` names (a Hydra ``_target_`` with its arguments)."""
    dataset = instantiate(cfg.load)
    if not isinstance(dataset, Dataset):
        raise TypeError(f"loader {cfg.load._target_} returned {type(dataset).__name__}, not a Dataset")
    return dataset


__all__ = ["Dataset", "DatasetUnavailable", "load", "load_dataset"]
