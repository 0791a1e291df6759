use super::*;

// Fake credentials with the shapes of real ones (none of them is live).
const OPENAI: &str = "sk-proj-4fJ9xT2mQ7rL0bN8vC3kW6yH1zD5sAeXaMpLe_fAkE-k3y9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz9Xc2Vb5Nm8";
const OPENAI_LEGACY: &str = "sk-Ab3dEf6hIj9lMn2pQr5tUv8xYz1BcD4fGh7jKl0nOp3rSt6v";
const ANTHROPIC: &str = "sk-ant-api03-Xy7_Qm2Lk9-Pz4Rt8Vb1Nc6Hd3Jf5Gs0Wq2Er4Ty6Ui8Op1As3Df5Gh7Jk9Lz2Xc4Vb6Nm8Qw1Er3Ty5Ui7Op9As2Df4Gh6JkAA";
const GITHUB: &str = "ghp_R2d2C3p0Bb8Yoda4Luke7Leia1Han5Solo9Xw";
const GITHUB_PAT: &str =
    "github_pat_11ABCDEFG0abcdefghijkl_MNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789ABCD";
const AWS_ID: &str = "AKIAIOSFODNN7EXAMPLE";
const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const SLACK: &str = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";
const GOOGLE: &str = "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY";
const STRIPE: &str = "sk_live_51HqLyjWDarjtT1zdp7dcXcZQ3a";
const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
const BEARER: &str = "8f14e45fceea167a5a36dedd4bea2543";

const PEM: &str = "-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi..Z1BjP5CE/Wm/Rr500P
RK+Lh9x5eJPo5CAZ3/ANBE0sTK0ZsDGMak2m1g7Tvr2mGnq9Xsn9tM+GhOs
-----END RSA PRIVATE KEY-----";

fn r(text: &str) -> String {
    redact(text).text.into_owned()
}

#[test]
fn api_keys_go_by_their_shape() {
    for (key, kind) in [
        (OPENAI, "openai-key"),
        (OPENAI_LEGACY, "openai-key"),
        (ANTHROPIC, "anthropic-key"),
        (GITHUB, "github-token"),
        (GITHUB_PAT, "github-token"),
        (AWS_ID, "aws-key"),
        (SLACK, "slack-token"),
        (GOOGLE, "google-key"),
        (STRIPE, "stripe-key"),
        (JWT, "jwt"),
    ] {
        let text = format!("export TOKEN_X={key}\nthen run it");
        let out = redact(&text);
        assert_eq!(
            out.text,
            format!("export TOKEN_X=[REDACTED:{kind}]\nthen run it"),
            "{kind}"
        );
        assert_eq!(out.secrets, 1, "{kind}");
        // Inside JSON, at the start of a line, after a quote.
        let json = format!(r#"{{"env": {{"KEY": "{key}"}}}}"#);
        assert_eq!(
            r(&json),
            format!(r#"{{"env": {{"KEY": "[REDACTED:{kind}]"}}}}"#)
        );
    }
}

#[test]
fn a_tool_call_full_of_secrets() {
    let transcript = format!(
        "tool_call run_command({{\"command\": \"curl -H 'Authorization: Bearer {BEARER}' \
         https://api.example.com/v1/items\"}})\n\
         tool_result: ~/.aws/credentials:\n[default]\naws_access_key_id = {AWS_ID}\n\
         aws_secret_access_key = {AWS_SECRET}\n\
         .env: DATABASE_URL=postgres://app:s3cr3t-P4ss@db.internal:5432/app\n\
         OPENAI_API_KEY={OPENAI}\n"
    );
    let out = redact(&transcript);
    for secret in [BEARER, AWS_ID, AWS_SECRET, "s3cr3t-P4ss", OPENAI] {
        assert!(!out.text.contains(secret), "{secret} in\n{}", out.text);
    }
    assert!(out.text.contains(
        "'Authorization: Bearer [REDACTED:bearer-token]' https://api.example.com/v1/items"
    ));
    assert!(out
        .text
        .contains("aws_secret_access_key = [REDACTED:secret]\n"));
    assert!(out
        .text
        .contains("postgres://app:[REDACTED:password]@db.internal:5432/app"));
    assert_eq!(out.secrets, 5, "{}", out.text);
}

#[test]
fn private_key_blocks_whole_escaped_or_cut_off() {
    let text = format!("the key:\n{PEM}\nand the rest");
    assert_eq!(r(&text), "the key:\n[REDACTED:private-key]\nand the rest");
    // As a JSON string in tool arguments: newlines are `\n` escapes.
    let escaped = serde_json::to_string(&text).unwrap();
    assert_eq!(
        r(&escaped),
        r#""the key:\n[REDACTED:private-key]\nand the rest""#
    );
    // Cut off (a summary clamped in the middle of it): redacted to the end.
    let cut = &text[..text.len() / 2];
    assert_eq!(r(cut), "the key:\n[REDACTED:private-key]");
    for header in [
        "-----BEGIN PRIVATE KEY-----",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "-----BEGIN EC PRIVATE KEY-----",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----",
    ] {
        let block = format!(
            "{header}\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\n{}",
            header.replace("BEGIN", "END")
        );
        assert_eq!(r(&format!("x {block} y")), "x [REDACTED:private-key] y");
    }
    // A public key or certificate is not a secret.
    let public = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----";
    assert_eq!(r(public), public);
}

#[test]
fn passwords_after_their_key() {
    for (text, want) in [
        ("password=hunter2", "password=[REDACTED:password]"),
        (
            "PGPASSWORD=hunter2 psql",
            "PGPASSWORD=[REDACTED:password] psql",
        ),
        (
            r#"{"username": "admin", "password": "correct horse battery staple"}"#,
            r#"{"username": "admin", "password": "[REDACTED:password]"}"#,
        ),
        (
            r#"{"password":"with \"quotes\" inside","next":1}"#,
            r#"{"password":"[REDACTED:password]","next":1}"#,
        ),
        (
            r#"{"arguments": "{\"db_password\": \"pa55\", \"host\": \"h\"}"}"#,
            r#"{"arguments": "{\"db_password\": \"[REDACTED:password]\", \"host\": \"h\"}"}"#,
        ),
        (
            "  password: 'p@ss word'\n",
            "  password: '[REDACTED:password]'\n",
        ),
        (
            "mysql -u root --password=hunter2 db",
            "mysql -u root --password=[REDACTED:password] db",
        ),
        (
            "mysql -u root --password hunter2 db",
            "mysql -u root --password [REDACTED:password] db",
        ),
        (
            "https://x.io/?user=a&password=b&c=d",
            "https://x.io/?user=a&password=[REDACTED:password]&c=d",
        ),
        (
            "client_secret = \"abc123\"",
            "client_secret = \"[REDACTED:secret]\"",
        ),
        ("X-Api-Key: 5f2b9c1e7d", "X-Api-Key: [REDACTED:secret]"),
        ("api_key := \"k\"", "api_key := \"[REDACTED:secret]\""),
        (
            "Authorization: Basic dXNlcjpwYXNzd29yZA==",
            "Authorization: Basic [REDACTED:credentials]",
        ),
        (
            "PASSWORD=hunter2\nUSER=bob",
            "PASSWORD=[REDACTED:password]\nUSER=bob",
        ),
    ] {
        assert_eq!(r(text), want, "{text}");
    }
}

#[test]
fn ordinary_text_is_left_alone() {
    for text in [
        "Reset your password in the settings page.",
        "the secret to good code is tests",
        "password: $DB_PASSWORD",
        "password=${PASSWORD}",
        r#"{"password": null, "api_key": ""}"#,
        "cd /home/user && pwd",
        "use crate::secret::Key;",
        "task-1234567890abcdefghij and risk-0123456789abcdefghij",
        "pip install sk-learn",
        "the bearer of bad news; Bearer tokens expire",
        "AKIA is a prefix",
        "see https://example.com/secret/page and https://user@host/",
        "passwords must be long",
        "",
    ] {
        let out = redact(text);
        assert_eq!(out.text, text);
        assert_eq!(out.secrets, 0, "{text}");
        assert!(matches!(out.text, Cow::Borrowed(_)), "{text}: no copy");
    }
}

#[test]
fn redacting_twice_changes_nothing_more() {
    let text = format!(
        "{PEM}\npassword=hunter2 Bearer {BEARER} {OPENAI} https://u:p4ss@h/ \"secret\": \"x\""
    );
    let once = r(&text);
    let twice = redact(&once);
    assert_eq!(twice.text, once);
    assert_eq!(twice.secrets, 0, "{once}");
}

#[test]
fn odd_text_does_not_panic() {
    for text in [
        "password=",
        "password",
        "password:",
        "\"password\": \"unterminated",
        "\"password\": \"ends in a backslash\\",
        "--password",
        "password=\u{e9}t\u{e9}",
        "password: \"caf\u{e9} \\\u{e9}\"",
        "-----BEGIN PRIVATE KEY-----",
        "Bearer ",
        "secret::",
        "\\\"password\\\": \\\"x",
    ] {
        let _ = redact(text);
    }
}

/// A conversation that leaks: a key pasted by the user, a password in a tool call's
/// arguments, a private key and AWS keys in a tool result, a bearer token in reasoning.
pub(crate) fn leaky_session() -> crate::session::Session {
    let v = serde_json::json!([
        {"role": "user", "content": format!("Deploy with my key {OPENAI} and check the GitHub token {GITHUB}.")},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash",
             "arguments": serde_json::json!({"command": "mysql -u root --password=hunter2 -e 'select 1'"}).to_string()}}]},
        {"role": "tool", "tool_call_id": "c1", "content": format!("cat id_rsa\n{PEM}\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}")},
        {"role": "assistant", "content": format!("Calling the API with `Authorization: Bearer {BEARER}` worked.")},
        {"role": "user", "content": "Thanks. Now write the README."}
    ]);
    crate::formats::read(
        v.to_string().as_bytes(),
        Some(crate::session::Format::OpenAi),
    )
    .unwrap()
}

/// The secrets of [`leaky_session`].
pub(crate) const LEAKED: [&str; 7] = [
    OPENAI,
    GITHUB,
    "hunter2",
    "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi",
    AWS_ID,
    AWS_SECRET,
    BEARER,
];

#[test]
fn the_offline_summary_keeps_no_secret_with_redact() {
    use crate::summarize::{Input, OfflineSummarizer, Summarizer};
    use crate::tokens::{Counter, Encoding, Tokenizer};
    let s = leaky_session();
    let c = Counter::new(Tokenizer::new(Encoding::Approx).unwrap());
    let offline = OfflineSummarizer::default();
    let plain = offline.summarize(&Input::new(&s.messages), &c).unwrap();
    let shown: Vec<&str> = LEAKED
        .iter()
        .copied()
        .filter(|k| plain.contains(k))
        .collect();
    assert!(shown.len() >= 3, "the summary quotes secrets: {plain}");
    let input = Input::new(&s.messages)
        .with_instructions(Some(format!("never repeat {ANTHROPIC}")))
        .with_redaction(true);
    let clean = offline.summarize(&input, &c).unwrap();
    for k in LEAKED {
        assert!(!clean.contains(k), "{k} in\n{clean}");
    }
    assert!(clean.contains("[REDACTED:openai-key]"), "{clean}");
    // What `with_secrets_removed` hands a summarizer is clean too, instructions included.
    input.with_secrets_removed(|i| {
        let all: String = i.messages.iter().map(|m| m.text()).collect();
        for k in LEAKED {
            assert!(!all.contains(k), "{k} in\n{all}");
        }
        assert_eq!(
            i.instructions.as_deref(),
            Some("never repeat [REDACTED:anthropic-key]")
        );
    });
}
