"""neardup.dedup on a pandas DataFrame: one call gives the keep flag, what each dropped row
duplicates, how closely, and its group, as columns beside the data.

python python/examples/table_dedup.py [FILE.jsonl]   (default: the bundled Reuters sample)
"""

import sys

import neardup
import pandas as pd


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/reuters-sample.jsonl"
    df = pd.read_json(path, lines=True)
    verdicts = neardup.dedup(df, column="text", threshold=0.8)
    df = df.join(verdicts)
    unique = df[df["keep"]]
    print(
        f"{len(df)} rows, {len(unique)} kept, {len(df) - len(unique)} near duplicates dropped"
    )
    dropped = df[~df["keep"]].head(3)
    for _, row in dropped.iterrows():
        original = df.iloc[int(row["dup_of"])]
        print(f"  {row['id']} duplicates {original['id']} ({row['similarity']:.2f})")


if __name__ == "__main__":
    main()
