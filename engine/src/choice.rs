//! Enumerated settings as users spell them (`--weights tfidf`, `weights="tfidf"`): one table
//! per setting, written beside its enum with `choices!`, from which the
//! command line takes its values, their help and its messages (`cmd::values::choice`). The
//! engine's enums are the flags' values: no copy of them in the command line to keep in step,
//! and no argument parser in the engine.

/// A setting with a fixed set of values, each with the name users give and one line of help.
pub trait Choice: Copy + PartialEq + Send + Sync + 'static {
    /// Every value in the order `--help` lists them: its name, the value, its help (one line,
    /// no full stop, as clap shows a doc comment).
    const CHOICES: &'static [(&'static str, Self, &'static str)];

    /// The value called `name`, if there is one.
    fn from_name(name: &str) -> Option<Self> {
        Self::CHOICES
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|&(_, value, _)| value)
    }

    /// The name users give this value (`choices!` writes it as a `match`, so a variant
    /// missing from the table does not compile).
    fn name(self) -> &'static str;
}

/// Implements [`Choice`] (and `Display`, as the name) for an enum of unit variants
/// (`crate::choice::choices!`, beside the enum):
///
/// ```ignore
/// choices!(Weights {
///     "set" => Set: "Every distinct shingle weighs 1",
///     "tf" => Tf: "Shingle counts",
/// });
/// ```
macro_rules! choices {
    ($ty:ident { $($name:literal => $variant:ident: $help:literal,)+ }) => {
        impl $crate::choice::Choice for $ty {
            const CHOICES: &'static [(&'static str, Self, &'static str)] =
                &[$(($name, $ty::$variant, $help)),+];

            fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::choice::Choice::name(*self))
            }
        }
    };
}
pub(crate) use choices;

#[cfg(test)]
mod tests {
    use super::Choice;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Fruit {
        Apple,
        Pear,
    }

    super::choices!(Fruit {
        "apple" => Apple: "Round",
        "pear" => Pear: "Not round",
    });

    #[test]
    fn names_and_values_map_both_ways() {
        assert_eq!(Fruit::from_name("pear"), Some(Fruit::Pear));
        assert_eq!(Fruit::from_name("Pear"), None);
        assert_eq!(Fruit::Apple.name(), "apple");
        assert_eq!(Fruit::Pear.to_string(), "pear");
        assert_eq!(Fruit::CHOICES.len(), 2);
    }
}
