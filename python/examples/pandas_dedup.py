"""Drop near-duplicate rows of a pandas DataFrame by one text column.

python python/examples/pandas_dedup.py [FILE.jsonl]   (default: the bundled Reuters sample)
"""

import sys

import neardup
import pandas as pd


def drop_near_duplicates(df: pd.DataFrame, column: str, **options) -> pd.DataFrame:
    """The rows whose `column` is not a near duplicate of an earlier kept row's, in order."""
    d = neardup.Deduper(**options)
    keep = d.keep_many(df[column])
    return df[keep]


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/reuters-sample.jsonl"
    df = pd.read_json(path, lines=True)
    unique = drop_near_duplicates(df, "text", threshold=0.8)
    print(
        f"{len(df)} rows, {len(unique)} kept, {len(df) - len(unique)} near duplicates dropped"
    )


if __name__ == "__main__":
    main()
