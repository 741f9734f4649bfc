//! The one place toolgate's HTTP clients are made (feature `http`).
//!
//! Every `reqwest` client in toolgate (the Messages client of the LLM classifier and of
//! prompt hooks, http hooks, WebFetch, WebSearch, the MCP HTTP transports) starts from
//! [`client_builder`]. reqwest is built with rustls on the *ring* crypto provider
//! (`rustls-no-provider`, and rustls with only `ring`), which builds in a fraction of
//! aws-lc-sys's time; with no provider named by reqwest's features, building a client
//! panics unless a process-level provider was installed first. [`client_builder`] installs
//! it, once per process, so no caller can forget. Code that hands reqwest to another
//! library which builds its own client (rmcp's streamable-HTTP transport) calls
//! [`install_crypto_provider`] first.
//!
//! `clippy.toml` refuses `reqwest::Client::new` and `reqwest::Client::builder` everywhere
//! else, so a new client cannot skip this module.
//!
//! ```
//! let client = toolgate_core::http::client_builder().build();
//! assert!(client.is_ok());
//! ```

use std::sync::Once;

/// Installs rustls's *ring* provider as the process-level default, once; later calls do
/// nothing.
///
/// If the host already installed a provider of its own (an embedding application using
/// aws-lc-rs, say), that one stays: rustls refuses a second default, and any installed
/// provider serves reqwest.
pub fn install_crypto_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // An error means a provider is already installed, which is all reqwest needs.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// `reqwest::Client::builder()` after [`install_crypto_provider`]: the start of every
/// HTTP client toolgate builds.
#[expect(clippy::disallowed_methods, reason = "the one place a reqwest client builder is made")]
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_builds_and_the_ring_provider_is_the_default() {
        // Without the provider, reqwest's build panics ("No rustls crypto provider is
        // configured"); this is the first client of this test's process under nextest.
        let client = client_builder().build();
        assert!(client.is_ok(), "{client:?}");
        let provider = rustls::crypto::CryptoProvider::get_default().expect("a provider is installed");
        // aws-lc-rs would also offer the post-quantum X25519MLKEM768 group.
        let groups = |p: &rustls::crypto::CryptoProvider| p.kx_groups.iter().map(|g| g.name()).collect::<Vec<_>>();
        assert_eq!(groups(provider), groups(&rustls::crypto::ring::default_provider()));
    }

    #[test]
    fn installing_twice_is_harmless() {
        install_crypto_provider();
        install_crypto_provider();
        assert!(client_builder().build().is_ok());
    }
}
