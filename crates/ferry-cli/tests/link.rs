//! The link options of build.rs reach the `ferry` binary (x86_64 Linux, where rustc links with
//! lld): packed relative relocations, the startup functions placed before the rest of .text, and
//! the wrapped curl_global_init, sasl_client_init and sasl_client_new; and OpenSSL, static or
//! shared as the build asked.

#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use std::process::Command;

fn readelf(args: &[&str]) -> String {
    let out = Command::new("readelf")
        .args(args)
        .arg(env!("CARGO_BIN_EXE_ferry"))
        .output()
        .expect("readelf (binutils) runs");
    assert!(out.status.success(), "readelf {args:?} failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn relative_relocations_are_packed() {
    let sections = readelf(&["-SW"]);
    assert!(
        sections.contains(".relr.dyn"),
        "no .relr.dyn section: build.rs's -z pack-relative-relocs did not reach the link"
    );
}

/// The list's symbols carry the release build's hashes, so this checks the placement with the
/// names that do not depend on them: librdkafka's and jemalloc's C functions.
#[test]
fn listed_startup_functions_come_first_in_text() {
    let listed: Vec<&str> = include_str!("../startup-order.txt")
        .lines()
        .filter(|name| {
            name.starts_with("rd_kafka_new") || name.starts_with("_rjem_je_malloc_default")
        })
        .collect();
    assert!(
        !listed.is_empty(),
        "startup-order.txt lists rd_kafka_new and jemalloc's malloc"
    );
    let (start, size) = text_section();
    let symbols = readelf(&["-sW"]);
    for name in listed {
        let address = symbols
            .lines()
            .find(|l| l.split_whitespace().last() == Some(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .map(|a| u64::from_str_radix(a, 16).unwrap())
            .unwrap_or_else(|| panic!("{name} is not in the binary"));
        assert!(
            address - start < size / 4,
            "{name} lies at {:#x} of .text's {size:#x} bytes: the startup order was not applied",
            address - start
        );
    }
}

/// The list is recorded from a release build. This binary is the tests' build, another profile,
/// so its crates' disambiguators differ from the list's, as they do after any change of a
/// dependency; `startup-link` matches the listed names without them, so the listed functions
/// are still placed first.
#[test]
fn listed_rust_functions_come_first_in_a_build_whose_names_differ_from_the_list() {
    let listed: Vec<&str> = include_str!("../startup-order.txt")
        .lines()
        .filter(|name| name.starts_with("_R"))
        .collect();
    let symbols = readelf(&["-sW"]);
    let functions: Vec<(u64, &str)> = symbols
        .lines()
        .filter(|l| l.contains(" FUNC "))
        .filter_map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let address = u64::from_str_radix(fields.get(1)?, 16).ok()?;
            (address != 0).then_some((address, *fields.last()?))
        })
        .collect();
    let names: std::collections::HashSet<&str> = functions.iter().map(|(_, n)| *n).collect();
    assert!(
        listed.iter().any(|name| !names.contains(name)),
        "every listed name is in this build as it is: nothing here tests the matching"
    );
    let mut by_key: std::collections::HashMap<String, Vec<u64>> = Default::default();
    for (address, name) in &functions {
        by_key.entry(key(name)).or_default().push(*address);
    }
    // startup-link brings every function of a listed key that has at most four (see there).
    let placed: Vec<u64> = listed
        .iter()
        .map(|name| key(name))
        .collect::<std::collections::HashSet<_>>()
        .iter()
        .filter_map(|k| by_key.get(k))
        .filter(|addresses| addresses.len() <= 4)
        .flatten()
        .copied()
        .collect();
    assert!(
        placed.len() > 1000,
        "only {} of the list's {} Rust names are in this build (a RUSTFLAGS of the environment \
         replaces .cargo/config.toml's, whose v0 symbol names the list is written in)",
        placed.len(),
        listed.len()
    );
    let (start, size) = text_section();
    let late: Vec<u64> = placed
        .iter()
        .copied()
        .filter(|a| a - start >= size / 4)
        .collect();
    // A rare local function stays where it was (seen: one of 2,024, core's `_xgetbv` in a
    // local copy LLVM made); without the matching, nearly all of them do.
    assert!(
        late.len() * 100 <= placed.len(),
        "{} of {} listed functions lie after the first quarter of .text (the first at {:#x} of \
         {size:#x} bytes): startup-link did not match the list to this build's names",
        late.len(),
        placed.len(),
        late.first().map_or(0, |a| a - start)
    );
}

/// A symbol's name without what changes from build to build, as `startup-link`'s `key` makes
/// it: callgrind's recursion mark, LLVM's `.llvm.N` suffix, the legacy mangling's hash, and in v0 names the crates'
/// disambiguators (`Cs…_`) and back references (`B…_`).
fn key(name: &str) -> String {
    let name = name.split('\'').next().unwrap_or(name);
    let name = name.split(".llvm.").next().unwrap_or(name);
    if let Some(head) = name
        .strip_suffix('E')
        .filter(|h| h.len() > 19 && h.is_ascii())
    {
        let (path, hash) = head.split_at(head.len() - 19);
        if hash.starts_with("17h") && hash[3..].bytes().all(|b| b.is_ascii_hexdigit()) {
            return format!("{path}E");
        }
    }
    if !name.starts_with("_R") {
        return name.to_owned();
    }
    replace_runs(&replace_runs(name, "Cs", "C"), "B", "B_")
}

/// Replaces each `prefix`, alphanumerics and `_` in `name` with `with`, left to right.
fn replace_runs(name: &str, prefix: &str, with: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(prefix.as_bytes()) {
            let mut j = i + prefix.len();
            while j < bytes.len() && bytes[j].is_ascii_alphanumeric() {
                j += 1;
            }
            if bytes.get(j) == Some(&b'_') {
                out.push_str(with);
                i = j + 1;
                continue;
            }
        }
        out.push(char::from(bytes[i]));
        i += 1;
    }
    out
}

/// The start address and size of .text.
fn text_section() -> (u64, u64) {
    let sections = readelf(&["-SW"]);
    let text = sections
        .lines()
        .find(|l| l.split_whitespace().any(|w| w == ".text"))
        .expect(".text section");
    let fields: Vec<&str> = text.split_whitespace().collect();
    let at = fields.iter().position(|w| *w == ".text").unwrap();
    let start = u64::from_str_radix(fields[at + 2], 16).unwrap();
    let size = u64::from_str_radix(fields[at + 4], 16).unwrap();
    (start, size)
}

/// Whether the binary's symbol table defines or references `name`.
fn has_symbol(symbols: &str, name: &str) -> bool {
    symbols
        .lines()
        .any(|l| l.split_whitespace().last() == Some(name))
}

/// librdkafka's call of curl_global_init goes to src/curl_init.rs; nothing else calls libcurl's
/// own, so the linker drops it.
#[test]
fn librdkafka_does_not_initialise_curl_eagerly() {
    let symbols = readelf(&["-sW"]);
    assert!(
        has_symbol(&symbols, "__wrap_curl_global_init"),
        "the wrapper is missing"
    );
    assert!(has_symbol(&symbols, "curl_easy_init"), "libcurl is linked");
    assert!(
        !has_symbol(&symbols, "curl_global_init"),
        "curl_global_init is linked: build.rs's --wrap=curl_global_init did not reach the link"
    );
}

/// librdkafka's calls of sasl_client_init and sasl_client_new go to src/sasl_init.rs, whose
/// wrappers are compiled only with the wraps (they call the `__real_` names the wraps define).
/// tests/cyrus_sasl.rs checks what they do.
#[test]
fn librdkafka_does_not_initialise_cyrus_sasl_eagerly() {
    let symbols = readelf(&["-sW"]);
    for wrapper in ["__wrap_sasl_client_init", "__wrap_sasl_client_new"] {
        assert!(
            has_symbol(&symbols, wrapper),
            "{wrapper} is missing: build.rs's wraps did not reach the build"
        );
    }
}

/// The scripts that build Ferry link OpenSSL statically where Debian's static libraries are
/// (scripts/build-env sets OPENSSL_STATIC for openssl-sys); the binary then needs neither of
/// OpenSSL's shared libraries. Built without it, the binary needs both.
#[test]
fn openssl_is_linked_the_way_the_build_asked() {
    let dynamic = readelf(&["-dW"]);
    let needs = |library: &str| {
        dynamic
            .lines()
            .any(|l| l.contains("(NEEDED)") && l.contains(library))
    };
    if option_env!("OPENSSL_STATIC") == Some("1") {
        for library in ["libcrypto.so", "libssl.so"] {
            assert!(
                !needs(library),
                "{library} is needed although OPENSSL_STATIC=1:\n{dynamic}"
            );
        }
    } else {
        assert!(
            needs("libcrypto.so") && needs("libssl.so"),
            "OpenSSL is not linked as a shared library:\n{dynamic}"
        );
    }
}
