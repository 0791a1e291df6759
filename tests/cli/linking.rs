//! The binary is a position-independent executable by default (build/link.rs): its image
//! is randomized like everything else. `CTXCTL_NO_PIE=1` at build time links it at a fixed
//! address on Linux with glibc, for a packager who prefers ~0.5 ms of start-up.

#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn the_binary_is_a_pie_unless_asked_otherwise() {
    let no_pie = option_env!("CTXCTL_NO_PIE").is_some_and(|v| !v.is_empty() && v != "0");
    let mut head = [0u8; 18];
    let mut bin = std::fs::File::open(env!("CARGO_BIN_EXE_ctxctl")).unwrap();
    std::io::Read::read_exact(&mut bin, &mut head).unwrap();
    assert_eq!(&head[..4], b"\x7fELF");
    // e_type, at byte 16 of the ELF header in the byte order byte 5 gives (2: big-endian):
    // 2 is an executable at a fixed address (ET_EXEC), 3 one the loader relocates wherever
    // it maps it (ET_DYN, PIE).
    let e_type = match head[5] {
        2 => u16::from_be_bytes([head[16], head[17]]),
        _ => u16::from_le_bytes([head[16], head[17]]),
    };
    assert_eq!(
        e_type,
        if no_pie { 2 } else { 3 },
        "e_type of the ctxctl binary"
    );
}
