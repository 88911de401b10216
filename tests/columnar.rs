//! Parquet and Arrow IPC in and out: the same documents kept as the JSON Lines of the same
//! rows, every column and the schema kept, typed annotations, bad rows and bad files, and
//! memory that does not grow with the file.

use crate::util::{SAMPLE, bin, neardup, sample_rows, temp_path};
use arrow_array::builder::{LargeStringBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray, StructArray,
};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::properties::WriterProperties;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn table(ids: &[i64], texts: &[Option<&str>]) -> RecordBatch {
    let score: Vec<f64> = ids.iter().map(|&i| i as f64 / 2.0).collect();
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("text", DataType::Utf8, true),
        Field::new("score", DataType::Float64, false),
    ])
    .with_metadata(HashMap::from([("source".to_string(), "tests".to_string())]));
    RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(texts.to_vec())),
            Arc::new(Float64Array::from(score)),
        ],
    )
    .unwrap()
}

/// Writes `batch` as Parquet in row groups of `group` rows.
fn write_parquet(path: &Path, batch: &RecordBatch, group: usize) {
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

fn read_parquet(path: &Path) -> RecordBatch {
    let file = std::fs::File::open(path).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let schema = builder.schema().clone();
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(|b| b.unwrap()).collect();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

/// Runs neardup with `args` on `input` writing `-o` a Parquet file named `name`, and reads
/// the file back.
fn filtered(args: &[&str], input: &Path, name: &str) -> RecordBatch {
    let out = temp_path(name);
    let mut all = args.to_vec();
    all.extend([input.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let run = neardup(&all, b"");
    assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    assert!(run.stdout.is_empty(), "the table goes to -o");
    read_parquet(&out)
}

fn ids_of(batch: &RecordBatch) -> Vec<i64> {
    let col = batch.column_by_name("id").unwrap();
    let ints = col.as_any().downcast_ref::<Int64Array>().unwrap();
    ints.values().to_vec()
}

fn sample_parquet(name: &str) -> (PathBuf, Vec<i64>) {
    let (ids, texts) = sample_rows();
    let texts: Vec<Option<&str>> = texts.iter().map(|t| Some(t.as_str())).collect();
    let path = temp_path(name);
    write_parquet(&path, &table(&ids, &texts), 200);
    (path, ids)
}

/// The ids the JSON Lines run keeps (its lines' `id`).
fn jsonl_ids(args: &[&str]) -> Vec<i64> {
    let mut all = vec!["-q"];
    all.extend_from_slice(args);
    all.push(SAMPLE);
    let run = neardup(&all, b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_slice::<serde_json::Value>(l).unwrap()["id"]
                .as_i64()
                .unwrap()
        })
        .collect()
}

#[test]
fn parquet_out_keeps_the_rows_jsonl_keeps_with_every_column_and_the_schema() {
    let (input, all_ids) = sample_parquet("sample.parquet");
    let kept = filtered(&["-q"], &input, "kept.parquet");
    let source = read_parquet(&input);
    assert_eq!(
        kept.schema(),
        source.schema(),
        "the input's schema, metadata included"
    );
    assert_eq!(kept.schema().metadata()["source"], "tests");
    assert_eq!(ids_of(&kept), jsonl_ids(&[]));
    assert!(kept.num_rows() < all_ids.len(), "the sample has duplicates");
    // Every column of a kept row is the input's.
    let score = kept
        .column(2)
        .as_any()
        .downcast_ref::<Float64Array>()
        .unwrap();
    for (i, id) in ids_of(&kept).iter().enumerate() {
        assert_eq!(score.value(i), *id as f64 / 2.0);
    }
    // --only-dups writes the others; the two partition the input.
    let dups = filtered(&["-q", "--only-dups"], &input, "dups.parquet");
    assert_eq!(ids_of(&dups), jsonl_ids(&["--only-dups"]));
    assert_eq!(dups.num_rows() + kept.num_rows(), all_ids.len());
}

#[test]
fn parquet_to_stdout_and_stdin_and_the_same_at_any_thread_count() {
    let (input, _) = sample_parquet("stdio.parquet");
    let bytes = std::fs::read(&input).unwrap();
    let one = neardup(&["-q", "-j", "1", input.to_str().unwrap()], b"");
    let three = neardup(&["-q", "-j", "3", "-"], &bytes);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(three.code, 0, "{}", three.stderr);
    assert!(one.stdout.starts_with(b"PAR1"));
    assert_eq!(
        one.stdout, three.stdout,
        "same bytes from a file or stdin, 1 or 3 threads"
    );
}

#[test]
fn annotate_adds_typed_columns() {
    let (input, _) = sample_parquet("annotate.parquet");
    let t = filtered(&["-q", "--annotate"], &input, "annotated.parquet");
    let schema = t.schema();
    assert_eq!(
        schema
            .field_with_name("neardup_dup_of")
            .unwrap()
            .data_type(),
        &DataType::Int64
    );
    assert_eq!(
        schema
            .field_with_name("neardup_similarity")
            .unwrap()
            .data_type(),
        &DataType::Float64
    );
    assert_eq!(
        schema.field_with_name("neardup_exact").unwrap().data_type(),
        &DataType::Boolean
    );
    // The same verdicts as the JSON annotation of the same rows.
    let json = neardup(&["-q", "--annotate", SAMPLE], b"");
    let dup = t.column_by_name("neardup_dup_of").unwrap();
    let dup = dup.as_any().downcast_ref::<Int64Array>().unwrap();
    let sim = t.column_by_name("neardup_similarity").unwrap();
    let sim = sim.as_any().downcast_ref::<Float64Array>().unwrap();
    let exact = t.column_by_name("neardup_exact").unwrap();
    let exact = exact.as_any().downcast_ref::<BooleanArray>().unwrap();
    let lines: Vec<&[u8]> = json
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(lines.len(), t.num_rows());
    let mut dups = 0;
    for (i, line) in lines.iter().enumerate() {
        let v: serde_json::Value = serde_json::from_slice(line).unwrap();
        let n = &v["neardup"];
        assert_eq!(n["dup_of"].as_i64(), dup.is_valid(i).then(|| dup.value(i)));
        assert_eq!(
            n["similarity"].as_f64(),
            sim.is_valid(i).then(|| sim.value(i))
        );
        assert_eq!(n["exact"].as_bool(), Some(exact.value(i)));
        dups += usize::from(dup.is_valid(i));
    }
    assert!(dups > 0);
}

#[test]
fn string_ids_nested_text_dictionary_and_large_strings() {
    let texts = [
        "alpha beta gamma delta epsilon zeta eta theta",
        "one two three four five six",
    ];
    let rows = [texts[0], texts[1], texts[0], texts[1]];
    let body: ArrayRef = Arc::new(StringArray::from(rows.to_vec()));
    let meta = StructArray::from(vec![(
        Arc::new(Field::new("body", DataType::Utf8, true)),
        body,
    )]);
    let mut dict = StringDictionaryBuilder::<Int32Type>::new();
    rows.iter().for_each(|r| dict.append_value(r));
    let mut large = LargeStringBuilder::new();
    rows.iter().for_each(|r| large.append_value(r));
    let batch = RecordBatch::try_from_iter(vec![
        (
            "key",
            Arc::new(StringArray::from(vec!["a", "b", "c", "d"])) as ArrayRef,
        ),
        ("meta", Arc::new(meta) as ArrayRef),
        ("dict", Arc::new(dict.finish()) as ArrayRef),
        ("large", Arc::new(large.finish()) as ArrayRef),
    ])
    .unwrap();
    let input = temp_path("shapes.parquet");
    write_parquet(&input, &batch, 2);
    for field in ["meta.body", "dict", "large"] {
        let out = temp_path(&format!("shapes-{field}.parquet"));
        let run = neardup(
            &[
                "-q",
                "--annotate",
                "--field",
                field,
                "--id-field",
                "key",
                input.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ],
            b"",
        );
        assert_eq!(run.code, 0, "{field}: {}", run.stderr);
        let t = read_parquet(&out);
        let dup = t.column_by_name("neardup_dup_of").unwrap();
        assert_eq!(dup.data_type(), &DataType::Utf8, "string ids stay strings");
        let dup = dup.as_any().downcast_ref::<StringArray>().unwrap();
        let got: Vec<Option<&str>> = (0..4)
            .map(|i| dup.is_valid(i).then(|| dup.value(i)))
            .collect();
        assert_eq!(got, vec![None, None, Some("a"), Some("b")], "{field}");
    }
    // A one-row file, and pairs on Parquet name the id column's values.
    let pairs = neardup(
        &[
            "-q",
            "--pairs",
            "--field",
            "dict",
            "--id-field",
            "key",
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(pairs.code, 0, "{}", pairs.stderr);
    assert_eq!(String::from_utf8_lossy(&pairs.stdout), "a\tc\t1\nb\td\t1\n");
}

#[test]
fn null_texts_are_bad_rows_under_every_policy() {
    let input = temp_path("nulls.parquet");
    let texts = [
        Some("a b c d e f g h"),
        None,
        Some("a b c d e f g h"),
        Some("x y z w v u t s"),
    ];
    write_parquet(&input, &table(&[1, 2, 3, 4], &texts), 2);
    let path = input.to_str().unwrap();
    let out = temp_path("nulls-out.parquet");
    let o = out.to_str().unwrap();
    let pass = neardup(&["--on-bad-line", "pass", path, "-o", o], b"");
    assert_eq!(pass.code, 0, "{}", pass.stderr);
    assert!(
        pass.stderr
            .contains("nulls.parquet:2: field 'text' is null"),
        "{}",
        pass.stderr
    );
    assert_eq!(ids_of(&read_parquet(&out)), vec![1, 2, 4], "passed through");
    let skip = neardup(&["--on-bad-line", "skip", path, "-o", o], b"");
    assert_eq!(skip.code, 0, "{}", skip.stderr);
    assert_eq!(ids_of(&read_parquet(&out)), vec![1, 4]);
    let _ = std::fs::remove_file(&out);
    let fail = neardup(&["--on-bad-line", "fail", path, "-o", o], b"");
    assert_eq!(fail.code, 1, "{}", fail.stderr);
    assert!(fail.stderr.contains("nulls.parquet:2"), "{}", fail.stderr);
    assert!(!out.exists(), "a failed run leaves no output file");
}

#[test]
fn bad_files_and_columns_are_named_and_leave_nothing_behind() {
    let (input, _) = sample_parquet("bad.parquet");
    let path = input.to_str().unwrap();
    // A directory of its own: other tests write their temporaries beside theirs meanwhile.
    let dir = temp_path("bad-files");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("bad-out.parquet");
    let o = out.to_str().unwrap();
    // A missing column lists the columns; a column of the wrong type says its type.
    let run = neardup(&["--field", "body", path, "-o", o], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("has no column 'body'")
            && run
                .stderr
                .contains("id (Int64), text (Utf8), score (Float64)"),
        "{}",
        run.stderr
    );
    let run = neardup(&["--field", "score", path], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("holds Float64, not text"),
        "{}",
        run.stderr
    );
    let run = neardup(&["--id-field", "score", path], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    // A truncated file (its footer cut off).
    let bytes = std::fs::read(&input).unwrap();
    let cut = temp_path("truncated.parquet");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let run = neardup(&[cut.to_str().unwrap(), "-o", o], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("truncated.parquet: not readable as Parquet"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
    // Not Parquet at all, read as Parquet.
    let run = neardup(&["--input-format", "parquet", SAMPLE], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("not readable as Parquet"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
    // Corrupt data in a middle row group: the row group is named, the target not written.
    let mut broken = bytes.clone();
    let middle = broken.len() / 2;
    for b in &mut broken[middle..middle + 4096] {
        *b ^= 0x5a;
    }
    let corrupt = temp_path("corrupt.parquet");
    std::fs::write(&corrupt, &broken).unwrap();
    let run = neardup(&[corrupt.to_str().unwrap(), "-o", o], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("corrupt.parquet, row group"),
        "{}",
        run.stderr
    );
    assert!(!out.exists(), "no half-written file");
    let leftovers = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains("neardup-")
        })
        .count();
    assert_eq!(leftovers, 0, "no temporary file stays");
    // Lines in, a table asked for: refused before anything is written.
    let run = neardup(&["--output-format", "parquet", SAMPLE], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty());
}

#[test]
fn arrow_streams_in_and_out_and_rows_as_json() {
    let (ids, texts) = sample_rows();
    let texts: Vec<Option<&str>> = texts.iter().map(|t| Some(t.as_str())).collect();
    let batch = table(&ids, &texts);
    let mut stream = Vec::new();
    {
        let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut stream, &batch.schema()).unwrap();
        for start in (0..batch.num_rows()).step_by(300) {
            let n = 300.min(batch.num_rows() - start);
            w.write(&batch.slice(start, n)).unwrap();
        }
        w.finish().unwrap();
    }
    let run = neardup(&["-q", "-"], &stream);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let reader = arrow_ipc::reader::StreamReader::try_new(&run.stdout[..], None).unwrap();
    let mut kept = Vec::new();
    for b in reader {
        kept.extend(ids_of(&b.unwrap()));
    }
    assert_eq!(kept, jsonl_ids(&[]));
    // Rows as JSON objects.
    let run = neardup(&["-q", "--output-format", "lines", "-"], &stream);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let first: serde_json::Value =
        serde_json::from_slice(run.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
    assert_eq!(first["id"], ids[0]);
    assert_eq!(first["score"], ids[0] as f64 / 2.0);
}

#[test]
fn every_command_reads_parquet_as_it_reads_the_same_jsonl() {
    let (input, _) = sample_parquet("commands.parquet");
    let p = input.to_str().unwrap();
    for args in [
        vec!["--pairs", "-t", "0.5"],
        vec!["graph", "--format", "tsv"],
        vec!["clusters"],
    ] {
        let mut a = args.clone();
        a.push("-q");
        let mut from_jsonl = a.clone();
        from_jsonl.push(SAMPLE);
        a.push(p);
        let x = neardup(&a, b"");
        let y = neardup(&from_jsonl, b"");
        assert_eq!(x.code, 0, "{args:?}: {}", x.stderr);
        assert_eq!(x.stdout, y.stdout, "{args:?}");
    }
    // clusters --keep writes the survivors' rows, as the filter does on this sample.
    let out = temp_path("survivors.parquet");
    let run = neardup(
        &[
            "clusters",
            "-q",
            "--keep",
            "first",
            p,
            "-o",
            out.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let survivors = read_parquet(&out);
    assert_eq!(survivors.schema().metadata()["source"], "tests");
    let lines = neardup(&["clusters", "-q", "--keep", "first", SAMPLE], b"");
    let ids: Vec<i64> = lines
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_slice::<serde_json::Value>(l).unwrap()["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(ids_of(&survivors), ids);
    let run = neardup(&["clusters", "-q", "--output-format", "parquet", p], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    // --against a Parquet reference: nothing of the reference's own is kept.
    let run = neardup(&["-q", "--against", p, SAMPLE], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "every document is in the reference");
    // -o FILE for a command that writes lines.
    let out = temp_path("graph.tsv");
    let run = neardup(
        &[
            "graph",
            "-q",
            "--format",
            "tsv",
            p,
            "-o",
            out.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert_eq!(
        std::fs::read(&out).unwrap(),
        neardup(&["graph", "-q", "--format", "tsv", SAMPLE], b"").stdout
    );
}

#[test]
fn split_runs_with_state_equal_one_run() {
    let (ids, texts) = sample_rows();
    let texts: Vec<Option<&str>> = texts.iter().map(|t| Some(t.as_str())).collect();
    let half = ids.len() / 2;
    let a = temp_path("state-a.parquet");
    let b = temp_path("state-b.parquet");
    write_parquet(&a, &table(&ids[..half], &texts[..half]), 100);
    write_parquet(&b, &table(&ids[half..], &texts[half..]), 100);
    let state = temp_path("parquet.state");
    crate::util::remove_state(&state);
    let s = state.to_str().unwrap();
    let (oa, ob) = (temp_path("state-oa.parquet"), temp_path("state-ob.parquet"));
    for (input, out) in [(&a, &oa), (&b, &ob)] {
        let run = neardup(
            &[
                "-q",
                "--state",
                s,
                input.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ],
            b"",
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let mut kept = ids_of(&read_parquet(&oa));
    kept.extend(ids_of(&read_parquet(&ob)));
    assert_eq!(kept, jsonl_ids(&[]));
}

/// `--checkpoint-every` would record rows as kept that a table written whole at the end
/// does not keep when the run then fails (a full disk: the file is not put in place): it is
/// refused with a table file and with Parquet or Arrow on standard output, before any state
/// or output exists; JSON rows on standard output are lines and checkpoint like lines.
#[test]
fn checkpoints_are_refused_where_a_failed_table_would_lose_their_rows() {
    let (input, _) = sample_parquet("checkpoint.parquet");
    let input = input.to_str().unwrap();
    let state = temp_path("checkpoint.state");
    let out = temp_path("checkpoint-out.parquet");
    let s = state.to_str().unwrap();
    let o = out.to_str().unwrap();
    let cases: [&[&str]; 4] = [
        &["-o", o],
        &["--output-format", "parquet"],
        &["--output-format", "arrow"],
        &["--output-format", "lines", "-o", o],
    ];
    for case in cases {
        crate::util::remove_state(&state);
        let _ = std::fs::remove_file(&out);
        let args = [&["--state", s, "--checkpoint-every", "10", input], case].concat();
        let run = neardup(&args, b"");
        assert_eq!(run.code, 2, "{case:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("--checkpoint-every") && run.stderr.contains("table"),
            "{case:?}: {}",
            run.stderr
        );
        assert!(
            !state.exists() && !out.exists(),
            "{case:?}: left files behind"
        );
    }
    crate::util::remove_state(&state);
    let args = ["-q", "--state", s, "--checkpoint-every", "10", input];
    let rows = neardup(&[&args[..], &["--output-format", "lines"]].concat(), b"").ok();
    assert_eq!(
        rows.stdout,
        neardup(&["-q", input, "--output-format", "lines"], b"")
            .ok()
            .stdout
    );
    crate::util::remove_state(&state);
}

/// Memory does not grow with the file: a file 4× as large, under the same small budget,
/// peaks within a few MiB of the smaller one (the budget evicts; row groups stream).
#[test]
fn memory_does_not_grow_with_the_file() {
    let mut words = crate::util::Words::new(7);
    let mut peaks = Vec::new();
    for (name, groups) in [("small.parquet", 4), ("large.parquet", 16)] {
        let path = temp_path(name);
        let file = std::fs::File::create(&path).unwrap();
        let schema = table(&[0], &[Some("x")]).schema();
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(5000))
            .build();
        let mut w = ArrowWriter::try_new(file, schema, Some(props)).unwrap();
        for g in 0..groups {
            let ids: Vec<i64> = (0..5000).map(|i| g * 5000 + i).collect();
            let texts: Vec<String> = ids.iter().map(|_| words.doc(120).join(" ")).collect();
            let texts: Vec<Option<&str>> = texts.iter().map(|t| Some(t.as_str())).collect();
            w.write(&table(&ids, &texts)).unwrap();
        }
        w.close().unwrap();
        let out = temp_path(&format!("out-{name}"));
        let mut cmd = bin();
        cmd.args([
            "-q",
            "--stats",
            "-j",
            "2",
            "--max-memory",
            "64M",
            "--spill-dir",
            "none",
        ])
        .arg(&path)
        .arg("-o")
        .arg(&out);
        let output = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        let stats: serde_json::Value =
            serde_json::from_str(stderr.lines().last().unwrap()).unwrap();
        assert_eq!(stats["docs_read"], (groups * 5000) as u64);
        assert_eq!(
            read_parquet(&out).num_rows() as u64,
            stats["written"].as_u64().unwrap()
        );
        peaks.push(stats["peak_rss_bytes"].as_u64().unwrap());
    }
    let (small, large) = (peaks[0] as f64, peaks[1] as f64);
    assert!(
        large < small * 1.25 + 16e6,
        "peak RSS {small:.0} for 20,000 rows, {large:.0} for 80,000"
    );
    // The whole process within the budget, as for lines (tests/limits.rs): the decoder and
    // the row group being written come out of the window's share.
    for peak in [small, large] {
        assert!(
            peak <= 1.1 * 64.0 * 1048576.0,
            "peak RSS {peak:.0} under 64 MiB"
        );
    }
}

/// SIGTERM while an Arrow stream is still arriving: the Parquet file is renamed into place
/// with a valid footer over the rows decided, and the exit status says which signal.
#[test]
fn a_signal_ends_the_table_with_its_footer() {
    use std::io::Write;
    let (ids, texts) = sample_rows();
    let texts: Vec<Option<&str>> = texts.iter().map(|t| Some(t.as_str())).collect();
    let batch = table(&ids, &texts);
    let mut head = Vec::new();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut head, &batch.schema()).unwrap();
    w.write(&batch.slice(0, 400)).unwrap();
    w.flush().unwrap();
    drop(w);
    let out = temp_path("signalled.parquet");
    let _ = std::fs::remove_file(&out);
    let mut child = crate::util::spawn_piped(bin().args(["-q", "-o", out.to_str().unwrap()]));
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&head).unwrap();
    stdin.flush().unwrap();
    // The first rows are decided while the stream stays open.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    drop(stdin);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(128 + libc::SIGTERM), "{stderr}");
    assert!(stderr.contains("interrupted (signal 15)"), "{stderr}");
    let kept = read_parquet(&out);
    assert!(kept.num_rows() > 0, "{stderr}");
    let all = jsonl_ids(&[]);
    assert_eq!(ids_of(&kept), all[..kept.num_rows()].to_vec());
}

/// The sample's JSON lines as Parquet with every field a column (id, date, title, text),
/// through Arrow's JSON reader.
fn full_sample_parquet(name: &str) -> PathBuf {
    use std::io::{BufReader, Seek};
    let mut file = std::fs::File::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/",
        "tests/data/reuters-sample.jsonl"
    ))
    .unwrap();
    let (schema, _) =
        arrow_json::reader::infer_json_schema_from_seekable(BufReader::new(&mut file), None)
            .unwrap();
    file.rewind().unwrap();
    let reader = arrow_json::ReaderBuilder::new(Arc::new(schema.clone()))
        .build(BufReader::new(file))
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    let batch = arrow_select::concat::concat_batches(&Arc::new(schema), &batches).unwrap();
    let path = temp_path(name);
    write_parquet(&path, &batch, 300);
    path
}

/// --block-by, --node-attr and --keep max:FIELD take their values from columns as they take
/// them from JSON fields: the same output.
#[test]
fn attribute_columns_act_as_json_fields() {
    let input = full_sample_parquet("full.parquet");
    let p = input.to_str().unwrap();
    for args in [
        vec!["--pairs", "-t", "0.5", "--block-by", "date"],
        vec!["graph", "--format", "json", "--node-attr", "title"],
        vec!["clusters", "--keep", "max:date"],
    ] {
        let mut a = args.clone();
        a.push("-q");
        if a[0] == "clusters" {
            a.extend(["--output-format", "lines"]);
        }
        let mut from_jsonl = args.clone();
        from_jsonl.extend(["-q", SAMPLE]);
        a.push(p);
        let x = neardup(&a, b"");
        let y = neardup(&from_jsonl, b"");
        assert_eq!(x.code, 0, "{args:?}: {}", x.stderr);
        if a[0] == "clusters" {
            // Rows as JSON objects, keys in the column order: compare the ids kept.
            let ids = |out: &[u8]| -> Vec<i64> {
                out.split(|&b| b == b'\n')
                    .filter(|l| !l.is_empty())
                    .map(|l| {
                        serde_json::from_slice::<serde_json::Value>(l).unwrap()["id"]
                            .as_i64()
                            .unwrap()
                    })
                    .collect()
            };
            assert_eq!(ids(&x.stdout), ids(&y.stdout), "{args:?}");
        } else {
            assert_eq!(x.stdout, y.stdout, "{args:?}");
        }
    }
    let run = neardup(&["--block-by", "nope", p], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("has no column 'nope'"),
        "{}",
        run.stderr
    );
}

/// Edges of a table output: an input of no rows gives an empty table of its schema; files
/// of other columns cannot make one table (refused, the target left as it was); a text over
/// --max-line-bytes is a bad row; the id column is said once for several files.
#[test]
fn empty_inputs_other_schemas_and_long_texts() {
    let empty = temp_path("empty.parquet");
    write_parquet(&empty, &table(&[], &[]), 10);
    let t = filtered(&["-q"], &empty, "empty-out.parquet");
    assert_eq!(t.num_rows(), 0);
    assert_eq!(t.schema(), read_parquet(&empty).schema());

    let a = temp_path("schema-a.parquet");
    write_parquet(
        &a,
        &table(&[1, 2], &[Some("a b c d e f"), Some("g h i j k l")]),
        10,
    );
    let other = RecordBatch::try_from_iter(vec![
        ("id", Arc::new(Int64Array::from(vec![3])) as ArrayRef),
        (
            "text",
            Arc::new(StringArray::from(vec!["m n o p q r"])) as ArrayRef,
        ),
    ])
    .unwrap();
    let b = temp_path("schema-b.parquet");
    write_parquet(&b, &other, 10);
    let out = temp_path("schema-out.parquet");
    std::fs::write(&out, b"before").unwrap();
    let (pa, pb, o) = (
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let run = neardup(&[pa, pb, "-o", o], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("has other columns than"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        b"before",
        "the target is left as it was"
    );
    // The filter's table shows no ids, so nothing is said of them.
    assert_eq!(
        run.stderr.matches("neardup: ids:").count(),
        0,
        "{}",
        run.stderr
    );
    // As lines, the two files are one stream.
    let run = neardup(&["-q", "--output-format", "lines", pa, pb], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.iter().filter(|&&b| b == b'\n').count(), 3);

    let long = "word ".repeat(400);
    let c = temp_path("long.parquet");
    write_parquet(
        &c,
        &table(&[1, 2], &[Some(long.as_str()), Some("a b c d e f")]),
        10,
    );
    let out = temp_path("long-out.parquet");
    let run = neardup(
        &[
            "--max-line-bytes",
            "1000",
            "--on-bad-line",
            "skip",
            c.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("long.parquet:1: line of 2000 bytes"),
        "{}",
        run.stderr
    );
    assert_eq!(ids_of(&read_parquet(&out)), vec![2]);
}

/// A reader that stops early (`| head`) ends a table output quietly with status 0, as it ends
/// lines.
#[test]
fn a_closed_pipe_is_a_quiet_success() {
    use std::io::Read;
    let (input, _) = sample_parquet("pipe.parquet");
    for args in [vec!["-q"], vec!["-q", "--output-format", "lines"]] {
        let mut child = crate::util::spawn_piped(bin().args(&args).arg(&input));
        drop(child.stdin.take());
        let mut first = [0u8; 16];
        child
            .stdout
            .as_mut()
            .unwrap()
            .read_exact(&mut first)
            .unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

/// SIGTERM with `--state` while an Arrow stream is arriving: the Parquet file is complete
/// (footer, renamed into place) over the rows decided, the state is saved as of them, and
/// the resumed run's table holds exactly the rest: both tables together are one run's rows.
#[test]
fn a_signal_with_state_ends_the_table_and_the_resume_completes_it() {
    use std::io::Write;
    let (ids, texts) = sample_rows();
    let texts: Vec<Option<&str>> = texts.iter().map(|t| Some(t.as_str())).collect();
    let batch = table(&ids, &texts);
    let stream = |rows: Option<usize>| {
        let mut bytes = Vec::new();
        let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut bytes, &batch.schema()).unwrap();
        match rows {
            Some(n) => w.write(&batch.slice(0, n)).unwrap(),
            None => w.write(&batch).unwrap(),
        }
        match rows {
            Some(_) => w.flush().unwrap(),
            None => w.finish().unwrap(),
        }
        drop(w);
        bytes
    };
    let state = temp_path("signalled-state");
    let first = temp_path("signalled-first.parquet");
    let second = temp_path("signalled-second.parquet");
    let mut child = crate::util::spawn_piped(bin().args([
        "-q",
        "--state",
        state.to_str().unwrap(),
        "-o",
        first.to_str().unwrap(),
    ]));
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&stream(Some(400))).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    drop(stdin);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(128 + libc::SIGTERM), "{stderr}");
    assert!(stderr.contains("state saved"), "{stderr}");
    let kept = read_parquet(&first);
    assert!(kept.num_rows() > 0, "{stderr}");
    // The resumed run is given the whole input again and skips what the state covers.
    let mut child = crate::util::spawn_piped(bin().args([
        "-q",
        "--state",
        state.to_str().unwrap(),
        "-o",
        second.to_str().unwrap(),
    ]));
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&stream(None)).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut both = ids_of(&kept);
    both.extend(ids_of(&read_parquet(&second)));
    assert_eq!(both, jsonl_ids(&[]));
}

/// `--annotate` on a table that already has a `neardup_*` column is refused naming it, and
/// no output file is made: two columns of one name are a table other readers refuse.
#[test]
fn annotating_an_annotated_table_is_refused_unless_replacing() {
    let (input, _) = sample_parquet("to-annotate.parquet");
    let annotated = filtered(&["-q", "--annotate"], &input, "annotated.parquet");
    assert!(annotated.column_by_name("neardup_similarity").is_some());
    let again = temp_path("annotated-again.parquet");
    let out = temp_path("annotated.parquet");
    let run = neardup(
        &[
            "-q",
            "--annotate",
            out.to_str().unwrap(),
            "-o",
            again.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("neardup_dup_of"), "{}", run.stderr);
    assert!(
        run.stderr.contains("--replace-annotations"),
        "{}",
        run.stderr
    );
    assert!(!again.exists());
    // With the flag: the same table as annotating the input once, new columns in place.
    neardup(
        &[
            "-q",
            "--annotate",
            "--replace-annotations",
            out.to_str().unwrap(),
            "-o",
            again.to_str().unwrap(),
        ],
        b"",
    )
    .ok();
    assert_eq!(read_parquet(&again), annotated);
}

/// An `id` column of another type (floats) is not taken as the ids: the rows are numbered,
/// and an output that shows ids says so once (a filter writing rows says nothing).
#[test]
fn an_id_column_of_floats_is_said_to_number_the_rows() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Float64, false),
        Field::new("text", DataType::Utf8, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(arrow_array::Float64Array::from(vec![1.5, 2.5, 3.5])),
            Arc::new(StringArray::from(vec!["a b c d e", "a b c d e", "x y z"])),
        ],
    )
    .unwrap();
    let path = temp_path("float-ids.parquet");
    write_parquet(&path, &batch, 10);
    let p = path.to_str().unwrap();
    let graph = neardup(&["graph", "--format", "tsv", p], b"").ok();
    assert_eq!(graph.out(), "1\t2\t1\n");
    assert!(
        graph
            .stderr
            .contains("the rows are numbered: the 'id' column holds Float64"),
        "{}",
        graph.stderr
    );
    let out = temp_path("float-ids-out.parquet");
    let filter = neardup(&["--drop-dups", p, "-o", out.to_str().unwrap()], b"").ok();
    assert!(filter.stderr.is_empty(), "{}", filter.stderr);
    let quiet = neardup(&["graph", "--format", "tsv", "--id-field", "none", p], b"").ok();
    assert!(quiet.stderr.is_empty(), "{}", quiet.stderr);
}
