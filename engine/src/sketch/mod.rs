//! How shingles become a document's sketch: their weights (TF, TF-IDF and the IDF table:
//! [`weights`]), the MinHash signature ([`minhash`]) and its LSH band keys ([`lsh`]), which
//! the window's buckets index. The stage before is [`crate::text`].

pub mod lsh;
pub mod minhash;
pub mod settings;
pub mod weights;
