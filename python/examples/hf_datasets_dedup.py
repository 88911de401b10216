"""Drop near-duplicate rows of a Hugging Face `datasets.Dataset` with `Dataset.filter`.

    python python/examples/hf_datasets_dedup.py [FILE.jsonl]   (default: the bundled Reuters sample)

The Deduper holds the documents kept so far, so the filter runs in one process (no
`num_proc`) and in order; `batched=True` hands it batches, which it signs on every core.
"""

import sys

import datasets
import neardup


def drop_near_duplicates(
    ds: datasets.Dataset, column: str, **options
) -> datasets.Dataset:
    """The rows whose `column` is not a near duplicate of an earlier kept row's, in order."""
    d = neardup.Deduper(**options)
    return ds.filter(
        d.keep_many,
        input_columns=column,
        batched=True,
        batch_size=10_000,
        load_from_cache_file=False,
    )


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/reuters-sample.jsonl"
    ds = datasets.load_dataset("json", data_files=path, split="train")
    unique = drop_near_duplicates(ds, "text", threshold=0.8)
    print(
        f"{len(ds)} rows, {len(unique)} kept, {len(ds) - len(unique)} near duplicates dropped"
    )


if __name__ == "__main__":
    main()
