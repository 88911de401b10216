"""Drop near-duplicate rows of a polars DataFrame by one text column. The column goes to the
engine as Arrow: no Python string is made per row.

python python/examples/polars_dedup.py [FILE.jsonl]   (default: the bundled Reuters sample)
"""

import sys

import neardup
import polars as pl


def drop_near_duplicates(df: pl.DataFrame, column: str, **options) -> pl.DataFrame:
    """The rows whose `column` is not a near duplicate of an earlier kept row's, in order."""
    keep = neardup.Deduper(**options).keep_many(df, column=column)
    return df.filter(pl.Series(keep))


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/reuters-sample.jsonl"
    df = pl.read_ndjson(path)
    unique = drop_near_duplicates(df, "text", threshold=0.8)
    print(
        f"{len(df)} rows, {len(unique)} kept, {len(df) - len(unique)} near duplicates dropped"
    )


if __name__ == "__main__":
    main()
