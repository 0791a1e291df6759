//! The pre-tokenizer patterns of o200k_base and cl100k_base, split as `bpe-openai` does:
//! (pattern, ends in one look-ahead character). Shared by the build script, which turns them
//! into DFAs (build/pretok.rs), and by the pre-tokenizer (pretok.rs), which reads the flags.

/// cl100k_base's pattern, split as `bpe-openai` does: (pattern, ends in one look-ahead char).
pub const CL100K: [(&str, bool); 3] = [
    ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$", false),
    ("\\s+\\s", true),
    ("\\s+", false),
];

/// o200k_base's pattern, split likewise.
pub const O200K: [(&str, bool); 3] = [
    (concat!(
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "|\\p{N}{1,3}",
        "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
        "|\\s*[\\r\\n]+",
        "|\\s+$",
    ), false),
    ("\\s+\\s", true),
    ("\\s+", false),
];
