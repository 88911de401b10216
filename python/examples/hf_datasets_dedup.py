"""Drop near-duplicate rows of a Hugging Face `datasets.Dataset`.

    python python/examples/hf_datasets_dedup.py [FILE.jsonl]   (default: the bundled Reuters sample)

The engine reads the dataset's Arrow column itself (no Python string per row) and signs it
on every core; `Dataset.select` keeps the rows it kept, in order.
"""

import sys

import datasets
import neardup


def drop_near_duplicates(
    ds: datasets.Dataset, column: str, **options
) -> datasets.Dataset:
    """The rows whose `column` is not a near duplicate of an earlier kept row's, in order."""
    keep = neardup.Deduper(**options).keep_many(ds, column=column)
    return ds.select([row for row, kept in enumerate(keep) if kept])


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/reuters-sample.jsonl"
    ds = datasets.load_dataset("json", data_files=path, split="train")
    unique = drop_near_duplicates(ds, "text", threshold=0.8)
    print(
        f"{len(ds)} rows, {len(unique)} kept, {len(ds) - len(unique)} near duplicates dropped"
    )


if __name__ == "__main__":
    main()
