//! Compressed inputs end to end: the same bytes out as from the plain file, from a file and
//! from standard input, in every output format; a truncated stream is an error naming it.

use crate::util::{SAMPLE, neardup, sample_bytes, temp_path};
use std::io::Write;

fn gzip(data: &[u8]) -> Vec<u8> {
    // Two members, as `cat a.gz b.gz` makes: the file is read whole.
    let half = data.len() / 2;
    let mut out = Vec::new();
    for part in [&data[..half], &data[half..]] {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), Default::default());
        e.write_all(part).unwrap();
        out.extend(e.finish().unwrap());
    }
    out
}

fn zstd(data: &[u8]) -> Vec<u8> {
    zstd::stream::encode_all(data, 3).unwrap()
}

fn bzip2(data: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), Default::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn xz(data: &[u8]) -> Vec<u8> {
    let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

type Compressor = fn(&[u8]) -> Vec<u8>;
const FORMATS: [(&str, Compressor); 4] = [("gz", gzip), ("zst", zstd), ("bz2", bzip2), ("xz", xz)];

#[test]
fn compressed_files_and_stdin_give_the_plain_output() {
    let plain = sample_bytes();
    let modes: [&[&str]; 5] = [
        &["--drop-dups"],
        &["--annotate", "--id-field", "id"],
        &["--pairs", "-t", "0.5"],
        &["graph", "--format", "json"],
        &["clusters", "--by", "cliques"],
    ];
    let expected: Vec<Vec<u8>> = modes
        .iter()
        .map(|m| neardup(&[*m, &[SAMPLE]].concat(), b"").ok().stdout)
        .collect();
    for (ext, compress) in FORMATS {
        let bytes = compress(&plain);
        // A name that says nothing: formats are recognised by content.
        let path = temp_path(&format!("sample-{ext}.data"));
        std::fs::write(&path, &bytes).unwrap();
        let path = path.to_str().unwrap();
        for (mode, want) in modes.iter().zip(&expected) {
            let from_file = neardup(&[*mode, &[path]].concat(), b"").ok();
            assert_eq!(&from_file.stdout, want, "{ext} file, {mode:?}");
            let from_stdin = neardup(mode, &bytes).ok();
            assert_eq!(&from_stdin.stdout, want, "{ext} on stdin, {mode:?}");
        }
        // Line numbers and bytes read are those of the text.
        let stats = neardup(&["--stats", path], b"").ok().stats();
        assert_eq!(stats["docs_read"], 953, "{ext}");
        assert_eq!(stats["bytes_read"], plain.len() as u64, "{ext}");
    }
}

#[test]
fn a_truncated_stream_is_an_error_naming_the_file() {
    let plain = sample_bytes();
    for (ext, compress) in FORMATS {
        let bytes = compress(&plain);
        let path = temp_path(&format!("truncated.jsonl.{ext}"));
        std::fs::write(&path, &bytes[..bytes.len() * 2 / 3]).unwrap();
        let run = neardup(&[path.to_str().unwrap()], b"");
        assert_eq!(run.code, 1, "{ext}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!("reading {}", path.display())),
            "{ext}: {}",
            run.stderr
        );
        // From standard input the name is '-'.
        let run = neardup(&[], &bytes[..bytes.len() / 2]);
        assert_eq!(run.code, 1, "{ext} on stdin: {}", run.stderr);
        assert!(run.stderr.contains("reading -"), "{ext}: {}", run.stderr);
    }
}

/// `--decompress none` reads a stream that starts like bzip2 as it is; when auto took it for
/// bzip2 and it is not, the error says so and names the flag.
#[test]
fn decompress_says_what_it_assumed_and_can_be_turned_off() {
    let input = b"BZh91AY&SYxx\nfoo\n";
    let run = crate::util::neardup(&["--decompress", "none"], input).ok();
    assert_eq!(run.stdout, input);
    let run = crate::util::neardup(&[], input);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("read as bzip2 (its first bytes are this format's)")
            && run.stderr.contains("--decompress none reads it as it is"),
        "{}",
        run.stderr
    );
    let run = crate::util::neardup(&["--decompress", "gzip"], b"plain text line\n");
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("--decompress says so"),
        "{}",
        run.stderr
    );
}
