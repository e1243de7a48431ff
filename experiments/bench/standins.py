"""Stand-ins for the two datasets of BSP Table 1, in the real files' formats and at any size, up to the real ones:
the Land Registry's pp-2012.csv with a postcode table (ukpostcodes.zip), and the Data Expo's 2008.csv.bz2 with
plane-data.csv. They go where a user puts the real files by hand (``$MONDRIAN_DATA/<name>/``) and are read by the
real parsers, so a sweep on them costs what the real one costs: same shapes, same features, same kinds of values
(repeated postcodes, integer clock times, a few thousand planes). The targets follow simple made-up laws (log prices
falling away from London, delays growing with the hour and the plane's age): the scores mean nothing, the times and
the memory do.

``python -m experiments.bench.standins DIR`` writes both at the real sizes (about 15 s).
"""

from __future__ import annotations

import argparse
import bz2
import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

APARTMENT_FLATS = 122_341  # the flats the text counts
AIRLINE_FLIGHTS = 1_125_000  # 1M training + the next 100K test flights once cancelled ones (1 in 50) are dropped


def apartment_files(n_flats: int = 720, seed: int = 0, n_postcodes: int = 80) -> dict[str, bytes]:
    """pp-2012.csv (the Land Registry's 16 header-less quoted columns) and ukpostcodes.zip: ``n_flats`` flats sold in
    the window at ``n_postcodes`` postcodes over England (a third around London), log prices falling away from
    London, one house per nine flats and a flat sold after the window (both dropped by the loader)."""
    rng = np.random.default_rng(seed)
    codes = np.array([f"T{k // 10 + 1} {k % 10}AA" for k in range(n_postcodes)])
    near_london = rng.random(n_postcodes) < 1 / 3
    lat = np.where(near_london, rng.normal(51.5, 0.15, n_postcodes), rng.uniform(50.5, 54.5, n_postcodes))
    lon = np.where(near_london, rng.normal(-0.1, 0.2, n_postcodes), rng.uniform(-3.5, 0.5, n_postcodes))
    london = np.hypot(lat - 51.5, lon + 0.1)
    n_sales = n_flats + n_flats // 9
    where = rng.integers(n_postcodes, size=n_sales)
    price = np.exp(12.8 - 0.35 * london[where] + 0.25 * rng.standard_normal(n_sales)).astype(np.int64)
    day = np.datetime64("2012-02-01") + rng.integers(0, 274, n_sales)
    kind = np.where(np.arange(n_sales) < n_flats, "F", "D")
    sales = pd.DataFrame({
        "id": [f"{{{k:08d}}}" for k in range(n_sales)], "price": price,
        "date": pd.Series(day.astype(str)) + " 00:00", "postcode": codes[where], "type": kind, "new": "N",
        "duration": "L", "paon": np.arange(n_sales).astype(str), "saon": "", "street": "HIGH STREET", "locality": "",
        "town": "TOWN", "district": "DISTRICT", "county": "COUNTY", "category": "A", "status": "A",
    }).sample(frac=1.0, random_state=seed)  # fmt: skip
    late = ["{late}", 100000, "2012-11-02 00:00", codes[0], "F", "N", "L", "1", "", "", "", "", "", "", "A", "A"]
    sales.loc[len(sales)] = late
    table = pd.DataFrame({"id": range(n_postcodes), "postcode": codes, "latitude": lat.round(6),
                          "longitude": lon.round(6)})  # fmt: skip
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("ukpostcodes.csv", table.to_csv(index=False))
    return {
        "pp-2012.csv": sales.to_csv(index=False, header=False, quoting=1).encode(),
        "ukpostcodes.zip": buffer.getvalue(),
    }


def airline_files(n_flights: int = 1200, seed: int = 0, n_planes: int = 40) -> dict[str, bytes]:
    """2008.csv.bz2 (the Data Expo's 29 columns) and plane-data.csv: ``n_flights`` flights of Jan-Apr 2008 by
    ``n_planes`` planes, whose delay grows with the departure hour and the plane's age; one in 50 is cancelled."""
    rng = np.random.default_rng(seed)
    tails = np.array([f"N{100 + k}AA" for k in range(n_planes)])
    years = rng.integers(1985, 2008, n_planes)
    month = rng.integers(1, 5, n_flights)
    day = rng.integers(1, 29, n_flights)
    dep = rng.integers(6, 22, n_flights) * 100 + rng.integers(0, 60, n_flights)
    air = rng.integers(40, 300, n_flights)
    plane = rng.integers(0, n_planes, n_flights)
    delay = (dep // 100 - 12) * 2 + 0.5 * (2008 - years[plane]) + 10 * rng.standard_normal(n_flights)
    frame = pd.DataFrame({
        "Year": 2008, "Month": month, "DayofMonth": day, "DayOfWeek": (day % 7) + 1, "DepTime": dep,
        "CRSDepTime": dep, "ArrTime": (dep + air // 60 * 100 + air % 60) % 2400, "CRSArrTime": dep,
        "UniqueCarrier": "WN",
        "FlightNum": np.arange(n_flights), "TailNum": tails[plane], "ActualElapsedTime": air + 20,
        "CRSElapsedTime": air + 20, "AirTime": air, "ArrDelay": delay.round(), "DepDelay": 0, "Origin": "IAD",
        "Dest": "TPA", "Distance": air * 8, "TaxiIn": 4, "TaxiOut": 8,
        "Cancelled": (np.arange(n_flights) % 50 == 0) * 1,
        "CancellationCode": "", "Diverted": 0, "CarrierDelay": "NA", "WeatherDelay": "NA", "NASDelay": "NA",
        "SecurityDelay": "NA", "LateAircraftDelay": "NA",
    })  # fmt: skip
    planes = pd.DataFrame({"tailnum": tails, "type": "Corporation", "manufacturer": "EMBRAER", "issue_date": "",
                           "model": "EMB-145XR", "status": "Valid", "aircraft_type": "Fixed Wing Multi-Engine",
                           "engine_type": "Turbo-Fan", "year": years})  # fmt: skip
    return {
        "2008.csv.bz2": bz2.compress(frame.to_csv(index=False).encode(), compresslevel=1),
        "plane-data.csv": planes.to_csv(index=False).encode(),
    }


def write(home: Path, files: dict[str, dict[str, bytes]]) -> Path:
    """Each dataset's files into ``home/<dataset>/`` (where a user puts files by hand); returns home."""
    for name, contents in files.items():
        (home / name).mkdir(parents=True, exist_ok=True)
        for file_name, body in contents.items():
            (home / name / file_name).write_bytes(body)
    return home


def real_sizes(seed: int = 0) -> dict[str, dict[str, bytes]]:
    """Both datasets at the sizes of Table 1: 122,341 flats at 40,000 postcodes; 1.1M usable flights by 5,000
    planes."""
    return {
        "apartments": apartment_files(APARTMENT_FLATS, seed, n_postcodes=40_000),
        "airline": airline_files(AIRLINE_FLIGHTS, seed, n_planes=5_000),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", type=Path, help="the folder to use as $MONDRIAN_DATA")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    write(args.home, real_sizes(args.seed))
    print(f"stand-ins written under {args.home}; use them with MONDRIAN_DATA={args.home}")


if __name__ == "__main__":
    main()
