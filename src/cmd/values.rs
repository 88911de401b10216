//! The values of the enumerated flags (`--format`, `--verify`, `--words`, …), `-n`, sizes and
//! similarities: what clap parses and `--help` lists, before [`super::args`] turns them into
//! engine settings.

#[cfg(feature = "cli")]
use crate::choice::Choice;
#[cfg(feature = "cli")]
use crate::config::PairsFormat;
use crate::error::{Error, Result};
#[cfg(feature = "cli")]
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
#[cfg(feature = "cli")]
use std::marker::PhantomData;

/// The parser of an enumerated setting's flag: the engine's own enum `T` as the value, its
/// names ([`Choice::CHOICES`]) as what `--help` lists and what clap checks, suggests from
/// and names in its messages.
#[cfg(feature = "cli")]
pub fn choice<T: Choice>() -> ChoiceParser<T> {
    ChoiceParser(PhantomData)
}

/// See [`choice`].
#[cfg(feature = "cli")]
#[derive(Clone, Copy, Debug)]
pub struct ChoiceParser<T>(PhantomData<T>);

#[cfg(feature = "cli")]
impl<T: Choice> ChoiceParser<T> {
    fn values() -> impl Iterator<Item = PossibleValue> {
        T::CHOICES
            .iter()
            .map(|&(name, _, help)| PossibleValue::new(name).help(help))
    }
}

#[cfg(feature = "cli")]
impl<T: Choice> TypedValueParser for ChoiceParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<T, clap::Error> {
        let name = PossibleValuesParser::new(Self::values()).parse_ref(cmd, arg, value)?;
        // The parser took only the names of `T::CHOICES`.
        Ok(T::from_name(&name).expect("a listed name"))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(Self::values()))
    }
}

/// The filter's `--format` (the output's, for `--pairs`): `tsv` or `jsonl`. An input format
/// (`text`, `auto`) is refused pointing to `--input-format`, which it used to be.
#[cfg(feature = "cli")]
pub fn parse_pairs_format(text: &str) -> std::result::Result<PairsFormat, String> {
    match text {
        "tsv" => Ok(PairsFormat::Tsv),
        "jsonl" => Ok(PairsFormat::Jsonl),
        "text" | "auto" => Err(format!(
            "--format is the output's format (tsv or jsonl, for --pairs); the input's format \
             is --input-format {text}"
        )),
        _ => Err(
            "expected tsv or jsonl (the output's format, for --pairs; the input's \
                  format is --input-format)"
                .into(),
        ),
    }
}

/// `--ngram`: one length, or an inclusive range `LO..HI` (only `neardup hist` takes ranges).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NgramArg(pub usize, pub usize);

impl std::str::FromStr for NgramArg {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let num = |t: &str| {
            t.trim()
                .parse::<usize>()
                .map_err(|_| format!("'{s}' is not a number or a range LO..HI"))
        };
        match s.split_once("..") {
            None => num(s).map(|n| NgramArg(n, n)),
            Some((lo, hi)) => {
                let (lo, hi) = (num(lo)?, num(hi.trim_start_matches('='))?);
                if lo > hi || lo == 0 {
                    return Err(format!("'{s}' is not a range 1 <= LO <= HI"));
                }
                Ok(NgramArg(lo, hi))
            }
        }
    }
}

impl std::fmt::Display for NgramArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 == self.1 {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{}..{}", self.0, self.1)
        }
    }
}

/// A size such as `512M`, `8G`, `1.5G` or `1048576` (K, M, G and T are powers of 1024; a
/// trailing `B` or `iB` is allowed).
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix("ib"))
        .or_else(|| t.strip_suffix(['B', 'b']))
        .unwrap_or(t);
    let (number, shift) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 10),
        Some('M') => (&t[..t.len() - 1], 20),
        Some('G') => (&t[..t.len() - 1], 30),
        Some('T') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a size (e.g. 512M, 8G, 1048576)"))?;
    let bytes = value * (1u64 << shift) as f64;
    if !(0.0..1.8e19).contains(&bytes) {
        return Err(format!("'{text}' is not a size between 0 and 16 EiB"));
    }
    Ok(bytes as u64)
}

/// `value` if it is a similarity in [0, 1], else a usage error naming `setting`.
pub fn check_similarity(setting: &'static str, value: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(Error::config(setting, format!("{value} is not in [0, 1]")))
    }
}
