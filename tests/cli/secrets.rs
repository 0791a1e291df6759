//! Secrets: the LLM API key never shows in output, logs, errors, archives or `config`; and
//! `compact --redact` keeps the session's own secrets from the summarizer and the summary.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::http::{openai_answer, Server};
use crate::support::{s, Run, TestEnv};

// Fake credentials in the shapes of real ones.
const API_KEY: &str = "sk-proj-Zq8Wm3Xv7Lp2Rt9Ky4Hb6Nc1Jd5Fg0Sa-CTXCTLtestKEYdoNOTuse_8Uy3Ie7Oa2";
const PASTED: &str = "sk-ant-api03-Hq2_Lm8Pz4-Kt7Wb1Xc9Nd3Vf6Jg0Rs5Ty2Ui8Op1As3Df5Gh7Jk9Lz2Xc4Vb6Nm8Qw1Er3Ty5Ui7Op9As2DfAA";
const GH: &str = "ghp_T0k3nF0rCtxctlT3stsOnlyAbCdEfGhIj12";
const AWS: &str = "AKIAJ7Q2EXAMPLEZZ9QX";
const PASSWORD: &str = "Tr0ub4dor&3-horse";
const PEM_BODY: &str = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun";

/// Every secret of [`leaky`], and the API key.
const SECRETS: [&str; 6] = [API_KEY, PASTED, GH, AWS, PASSWORD, PEM_BODY];

/// An OpenAI session whose early messages leak secrets and whose recent ones do not.
fn leaky(env: &TestEnv) -> PathBuf {
    let pem = format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----"
    );
    let args = json!({"command": format!("psql postgres://admin:{PASSWORD}@db.internal/app -c 'select 1'")});
    let mut msgs = vec![
        json!({"role": "system", "content": "You are a coding agent."}),
        json!({"role": "user", "content": format!("Set up CI. My Anthropic key is {PASTED} and the GitHub token {GH}.")}),
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": args.to_string()}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": format!("{pem}\naws_access_key_id={AWS}\npassword = {PASSWORD}")}),
        json!({"role": "assistant", "content": format!("Configured the runner with `Authorization: Bearer {GH}` and the key in .env: ANTHROPIC_API_KEY={PASTED}")}),
    ];
    for i in 0..12 {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        msgs.push(json!({"role": role, "content": format!("step {i}: wire up the next CI job and check its logs")}));
    }
    env.write("leaky.json", serde_json::to_string_pretty(&msgs).unwrap())
}

fn llm_env(server: &Server) -> TestEnv {
    TestEnv::new()
        .env("CTXCTL_LLM_PROVIDER", "openai")
        .env("CTXCTL_LLM_BASE_URL", &format!("{}/v1", server.url))
        .env("CTXCTL_LLM_MODEL", "summarizer-small")
        .env("OPENAI_API_KEY", API_KEY)
}

fn compact(env: &TestEnv, file: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "compact",
        s(file),
        "--model",
        "gpt-4o",
        "--tokenizer",
        "approx",
        "--tail-tokens",
        "60",
    ];
    args.extend_from_slice(extra);
    env.run(&args)
}

/// Every file the run left under the test directory, as text.
fn all_files(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(all_files(&p));
        } else {
            out.push((
                p.clone(),
                String::from_utf8_lossy(&fs::read(&p).unwrap()).into(),
            ));
        }
    }
    out
}

fn assert_hidden(what: &str, text: &str, secret: &str) {
    assert!(!text.contains(secret), "{what} shows {secret}:\n{text}");
}

#[test]
fn the_api_key_never_shows_in_output_logs_errors_archives_or_config() {
    let server = Server::start(vec![
        openai_answer("SUMMARY: CI is set up."),
        (
            500,
            format!(r#"{{"error":{{"message":"upstream rejected key {API_KEY}"}}}}"#),
        ),
    ]);
    let env = llm_env(&server);
    let f = leaky(&env);
    let ok = compact(
        &env,
        &f,
        &["--summarizer", "llm", "--json", "-vv", "--in-place"],
    );
    assert_eq!(ok.code, 0, "{ok:?}");
    // The key was in play: the server got it, and -vv logged the summarizer's settings.
    let got = &server.requests()[0];
    assert!(got.contains(API_KEY), "{got}");
    let logged = ok
        .stderr
        .lines()
        .find_map(|l| l.split_once("llm summarizer: ").map(|(_, c)| c))
        .unwrap_or_else(|| panic!("no summarizer settings logged: {ok:?}"));
    insta::assert_snapshot!("logged_settings", env.redact(logged));
    // The session as it was (the run above compacted it in place).
    let f = leaky(&env);
    let failed = compact(
        &env,
        &f,
        &[
            "--summarizer",
            "llm",
            "--retries",
            "0",
            "-vv",
            "--name",
            "again",
        ],
    );
    assert_eq!(failed.code, 3, "{failed:?}");
    let said: Vec<&str> = (failed.stderr.lines())
        .filter(|l| l.starts_with("ctxctl: ") && !l.starts_with("ctxctl: [debug]"))
        .collect();
    insta::assert_snapshot!("failed", env.redact(&said.join("\n")));
    let show = env.run(&["archive", "show", "leaky/1", "--json"]);
    let ls = env.run(&["archive", "ls", "--json"]);
    let config = env.run(&["config"]);
    let config_json = env.run(&["config", "--json"]);
    assert_eq!((show.code, ls.code, config_json.code), (0, 0, 0));
    insta::assert_snapshot!("config", env.snap_unaligned(&config));
    for (what, run) in [
        ("compact", &ok),
        ("a failed compact", &failed),
        ("archive show", &show),
        ("archive ls", &ls),
        ("config", &config),
        ("config --json", &config_json),
    ] {
        assert_hidden(what, &format!("{}{}", run.stdout, run.stderr), API_KEY);
    }
    let files = all_files(env.path());
    let archives = env.data_dir().join("archives");
    assert!(files.iter().any(|(p, _)| p.starts_with(&archives)));
    for (p, text) in files {
        assert_hidden(&p.display().to_string(), &text, API_KEY);
    }
}

/// The summary message of a compacted OpenAI session.
fn summary_of(path: &Path) -> String {
    let msgs: Vec<Value> = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    msgs.iter()
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .find(|t| t.contains("SUMMARY") || t.contains("Offline summary"))
        .unwrap_or_else(|| panic!("no summary in {}", path.display()))
}

#[test]
fn redact_keeps_secrets_from_the_llm_and_from_the_summary() {
    // The model repeats a secret it was sent (or saw elsewhere): --redact removes it.
    let echo = format!("SUMMARY: CI is set up; GitHub token {GH} configured.");
    let server = Server::start(vec![openai_answer(&echo), openai_answer(&echo)]);
    let env = llm_env(&server);
    let f = leaky(&env);
    let plain = compact(&env, &f, &["--summarizer", "llm", "-o", "plain.json"]);
    assert_eq!(plain.code, 0, "{plain:?}");
    let run = compact(&env, &f, &["--summarizer", "llm", "--redact", "--in-place"]);
    assert_eq!(run.code, 0, "{run:?}");
    let reqs = server.requests();
    // Without --redact everything went out (the test would notice a leak).
    for secret in &SECRETS[1..] {
        assert!(
            reqs[0].contains(secret),
            "{secret} not in the plain request"
        );
    }
    let sent = &reqs[1];
    let body = &sent[sent.find("\r\n\r\n").unwrap()..];
    for secret in &SECRETS[1..] {
        assert_hidden("the request body", body, secret);
    }
    assert!(body.contains("[REDACTED:private-key]"), "{body}");
    assert!(summary_of(&env.path().join("plain.json")).contains(GH));
    insta::assert_snapshot!("redacted_summary", env.redact(&summary_of(&f)));
    // The archive's copy of the summary is the redacted one.
    let archive = env.run(&["archive", "show", "leaky/1", "--json"]).json();
    assert_hidden(
        "the archived summary",
        archive["summary"].as_str().unwrap(),
        GH,
    );
}

#[test]
fn redact_cleans_the_offline_summary_and_the_dry_run() {
    let env = TestEnv::new();
    let f = leaky(&env);
    let plain = compact(&env, &f, &["-o", "plain.json"]);
    assert_eq!(plain.code, 0, "{plain:?}");
    let leaked = summary_of(&env.path().join("plain.json"));
    assert!(
        SECRETS.iter().filter(|k| leaked.contains(*k)).count() >= 2,
        "the offline summary quotes the conversation: {leaked}"
    );
    let run = compact(&env, &f, &["--redact", "-o", "clean.json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let summary = summary_of(&env.path().join("clean.json"));
    for secret in SECRETS {
        assert_hidden("the offline summary", &summary, secret);
    }
    insta::assert_snapshot!("redacted_offline_summary", env.redact(&summary));
    let dry = compact(&env, &f, &["--redact", "--dry-run"]);
    assert_eq!(dry.code, 1, "{dry:?}");
    for secret in SECRETS {
        assert_hidden("--dry-run", &dry.stdout, secret);
    }
}

/// An HTTPS server on 127.0.0.1 with a self-signed certificate, for one connection.
fn self_signed_server() -> String {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    use std::io::Read;
    let dir = crate::support::repo().join("tests/data/tls");
    let cert = CertificateDer::from_pem_file(dir.join("cert.pem")).unwrap();
    let key = PrivateKeyDer::from_pem_file(dir.join("key.pem")).unwrap();
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let Ok((tcp, _)) = listener.accept() else {
            return;
        };
        let conn = rustls::ServerConnection::new(std::sync::Arc::new(config)).unwrap();
        let mut tls = rustls::StreamOwned::new(conn, tcp);
        // The client gives up during the handshake; whatever happens here is fine.
        let _ = tls.read(&mut [0; 1024]);
    });
    url
}

#[test]
fn tls_certificates_are_verified() {
    let url = self_signed_server();
    let env = TestEnv::new()
        .env("CTXCTL_LLM_BASE_URL", &url)
        .env("CTXCTL_LLM_MODEL", "summarizer-small")
        .env("OPENAI_API_KEY", API_KEY);
    let f = leaky(&env);
    let before = fs::read(&f).unwrap();
    let run = compact(
        &env,
        &f,
        &["--summarizer", "llm", "--retries", "0", "--in-place"],
    );
    assert_eq!(run.code, 3, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    assert_hidden("the TLS error", &run.stderr, API_KEY);
    assert_eq!(fs::read(&f).unwrap(), before);
}
