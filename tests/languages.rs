//! Words in every script, end to end: near duplicates written without spaces (Chinese,
//! Japanese, Thai, Lao, Khmer, Myanmar) are found with default settings by every command that
//! tokenises, and `--words spaces` gives the old words (and reads files written with them).

use crate::util::{neardup, temp_path};
use std::collections::BTreeSet;

/// Pairs of near duplicates, one per script, each second text the first with a word or two
/// changed; then documents that match nothing.
const PAIRS: [(&str, &str, &str); 9] = [
    (
        "zh",
        "我们今天去公园散步，天气非常好，阳光明媚，大家都很开心。",
        "我们今天去公园散步，天气非常好，阳光明媚，大家都很高兴。",
    ),
    (
        "ja",
        "今日は天気がとても良いので、家族と一緒に近くの公園を散歩しました。",
        "今日は天気がとても良いので、家族と一緒に近くの公園を散策しました。",
    ),
    (
        // Half-width katakana and full-width Latin fold to their usual forms (NFKC).
        "ja-width",
        "ｺｰﾋｰを飲みながらＲｕｓｔの新機能について話し合いました。",
        "コーヒーを飲みながらRustの新機能について話し合いました。",
    ),
    (
        "mixed",
        "Rust 1.89 の新機能として、リリースノートに記載された変更点を紹介します。",
        "Rust 1.90 の新機能として、リリースノートに記載された変更点を紹介します。",
    ),
    (
        "th",
        "วันนี้อากาศดีมากเราจึงไปเดินเล่นที่สวนสาธารณะกับครอบครัวและเพื่อนๆ",
        "วันนี้อากาศดีมากเราจึงไปเดินเล่นที่สวนสาธารณะกับครอบครัวและญาติๆ",
    ),
    (
        "lo",
        "ມື້ນີ້ອາກາດດີຫຼາຍພວກເຮົາໄປຍ່າງຫຼິ້ນຢູ່ສວນສາທາລະນະກັບຄອບຄົວ",
        "ມື້ນີ້ອາກາດດີຫຼາຍພວກເຮົາໄປຍ່າງຫຼິ້ນຢູ່ສວນສາທາລະນະກັບໝູ່ເພື່ອນ",
    ),
    (
        "km",
        "ថ្ងៃនេះអាកាសធាតុល្អណាស់យើងទៅដើរលេងនៅសួនច្បារសាធារណៈជាមួយគ្រួសារ",
        "ថ្ងៃនេះអាកាសធាតុល្អណាស់យើងទៅដើរលេងនៅសួនច្បារសាធារណៈជាមួយមិត្តភក្តិ",
    ),
    (
        "my",
        "ဒီနေ့ရာသီဥတုအရမ်းကောင်းလို့ကျွန်တော်တို့မိသားစုနဲ့ပန်းခြံထဲမှာလမ်းလျှောက်ခဲ့ကြတယ်",
        "ဒီနေ့ရာသီဥတုအရမ်းကောင်းလို့ကျွန်တော်တို့သူငယ်ချင်းတွေနဲ့ပန်းခြံထဲမှာလမ်းလျှောက်ခဲ့ကြတယ်",
    ),
    (
        // Korean is written with spaces: found before and after.
        "ko",
        "오늘은 날씨가 아주 좋아서 가족과 함께 근처 공원을 산책했습니다 정말 즐거운 하루였습니다",
        "오늘은 날씨가 아주 좋아서 가족과 함께 근처 공원을 산책했습니다 정말 행복한 하루였습니다",
    ),
];

const OTHERS: [&str; 3] = [
    "数据库索引可以显著提高查询速度，但也会增加写入的开销。",
    "このライブラリはメモリ使用量を抑えながら大量の文書を処理できます。",
    "The quick brown fox jumps over the lazy dog near the river bank today.",
];

/// The corpus as JSON Lines (ids "zh-a", "zh-b", …) and the expected pairs.
fn corpus() -> (String, BTreeSet<(String, String)>) {
    let mut lines = String::new();
    let mut pairs = BTreeSet::new();
    for (script, a, b) in PAIRS {
        for (side, text) in [("a", a), ("b", b)] {
            let doc = serde_json::json!({"id": format!("{script}-{side}"), "text": text});
            lines.push_str(&format!("{doc}\n"));
        }
        pairs.insert((format!("{script}-a"), format!("{script}-b")));
    }
    for (i, text) in OTHERS.iter().enumerate() {
        lines.push_str(&format!(
            "{}\n",
            serde_json::json!({"id": format!("other-{i}"), "text": text})
        ));
    }
    (lines, pairs)
}

fn pairs_of(tsv: &str) -> BTreeSet<(String, String)> {
    tsv.lines()
        .map(|l| {
            let mut f = l.split('\t');
            (f.next().unwrap().to_string(), f.next().unwrap().to_string())
        })
        .collect()
}

#[test]
fn every_script_is_found_by_default_and_the_old_words_miss_them() {
    let (input, expected) = corpus();
    let found = pairs_of(
        &neardup(
            &["--pairs", "--id-field", "id", "-t", "0.5", "-"],
            input.as_bytes(),
        )
        .ok()
        .out(),
    );
    assert_eq!(found, expected);
    // Split on spaces only, a sentence without spaces is one word: only the Korean pair and
    // the pair that differs in width alone (one word, the same after NFKC) are left.
    let old = neardup(
        &[
            "--pairs",
            "--id-field",
            "id",
            "-t",
            "0.5",
            "--words",
            "spaces",
            "-",
        ],
        input.as_bytes(),
    )
    .ok();
    let old = pairs_of(&old.out());
    assert!(
        old.len() <= 2 && old.contains(&("ko-a".into(), "ko-b".into())),
        "{old:?}"
    );
}

#[test]
fn the_filter_graph_and_clusters_use_the_same_words() {
    let (input, expected) = corpus();
    // The filter drops each pair's second document and keeps everything else.
    let kept = neardup(&["-t", "0.5", "--drop-dups", "-"], input.as_bytes()).ok();
    let kept: Vec<String> = kept
        .lines()
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(kept.len(), PAIRS.len() + OTHERS.len());
    assert!(kept.iter().all(|id| !id.ends_with("-b")), "{kept:?}");
    // graph --format tsv: the same pairs as edges.
    let graph = neardup(
        &[
            "graph",
            "--id-field",
            "id",
            "--format",
            "tsv",
            "-t",
            "0.5",
            "-",
        ],
        input.as_bytes(),
    )
    .ok();
    let edges: BTreeSet<(String, String)> = graph
        .lines()
        .iter()
        .filter(|l| !l.starts_with('#') && l.split('\t').count() == 3)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[1].to_string())
        })
        .collect();
    assert_eq!(edges, expected);
    // clusters: each pair is a cluster of two, the others clusters of one.
    let clusters = neardup(
        &["clusters", "--id-field", "id", "-t", "0.5", "-"],
        input.as_bytes(),
    )
    .ok();
    let mut members: std::collections::BTreeMap<u64, Vec<String>> = Default::default();
    for line in clusters.lines() {
        let row: serde_json::Value = serde_json::from_str(&line).unwrap();
        let id = row["id"].as_str().unwrap().to_string();
        members
            .entry(row["cluster"].as_u64().unwrap())
            .or_default()
            .push(id);
    }
    let pairs: BTreeSet<(String, String)> = members
        .values()
        .filter(|m| m.len() == 2)
        .map(|m| (m[0].clone(), m[1].clone()))
        .collect();
    assert_eq!(pairs, expected, "{}", clusters.out());
    assert_eq!(members.len(), PAIRS.len() + OTHERS.len());
}

#[test]
fn explain_diffs_character_by_character() {
    let (input, _) = corpus();
    let path = temp_path("languages-explain.jsonl");
    std::fs::write(&path, &input).unwrap();
    let path = path.to_str().unwrap();
    let run = neardup(
        &[
            "explain",
            "--id-field",
            "id",
            "-t",
            "0.5",
            "zh-a",
            "zh-b",
            path,
        ],
        b"",
    )
    .ok();
    assert!(
        run.out().contains("很 [-开 心-] {+高 兴+} 。"),
        "{}",
        run.out()
    );
}

#[test]
fn idf_and_state_files_name_their_words() {
    let (input, _) = corpus();
    let path = temp_path("languages.jsonl");
    std::fs::write(&path, &input).unwrap();
    let path = path.to_str().unwrap();
    // A table made with the old words is refused by a default run, with the way to read it.
    let idf = temp_path("languages-spaces.idf");
    let table = neardup(&["idf", "--words", "spaces", path], b"").ok();
    std::fs::write(&idf, &table.stdout).unwrap();
    let idf = idf.to_str().unwrap();
    let refused = neardup(&["--weights", "tfidf", "--idf", idf, "--pairs", path], b"");
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("--words spaces reads it"),
        "{}",
        refused.stderr
    );
    neardup(
        &[
            "--weights",
            "tfidf",
            "--idf",
            idf,
            "--words",
            "spaces",
            "--pairs",
            path,
        ],
        b"",
    )
    .ok();
    // So is a state.
    let state = temp_path("languages-spaces.state");
    let state = state.to_str().unwrap();
    neardup(
        &["--state", state, "--words", "spaces", "--drop-dups", path],
        b"",
    )
    .ok();
    let refused = neardup(&["--state", state, "--drop-dups", path], b"");
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("--words spaces reads it"),
        "{}",
        refused.stderr
    );
}
