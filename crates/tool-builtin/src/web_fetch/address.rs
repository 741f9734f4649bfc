//! Which addresses WebFetch may connect to: public ones always; loopback, private,
//! link-local and other special-purpose ones only when the host's [`AddressPolicy`] says so.
//!
//! The check runs on the addresses a name resolves to (in the HTTP client's resolver, so a
//! name cannot resolve to one address when checked and another when connected), and on
//! IP-literal hosts before every request, redirect hops included. IPv4 addresses embedded
//! in IPv6 ones (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`,
//! 6to4 `2002::/16`) are judged as the IPv4 address they carry.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Which non-public addresses WebFetch may reach. The default reaches public addresses
/// only.
///
/// This is a host setting, never part of a tool's input: the model cannot widen it.
///
/// ```
/// use toolgate_builtin::AddressPolicy;
/// let policy = AddressPolicy::default();
/// assert!(!policy.allow_loopback && !policy.allow_private);
/// assert!(policy.refusal("127.0.0.1".parse().unwrap()).is_some());
/// assert!(policy.refusal("93.184.215.14".parse().unwrap()).is_none());
/// let tests = AddressPolicy { allow_loopback: true, ..AddressPolicy::default() };
/// assert!(tests.refusal("::1".parse().unwrap()).is_none());
/// assert!(tests.refusal("10.0.0.1".parse().unwrap()).is_some());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AddressPolicy {
    /// Allow loopback addresses (`127.0.0.0/8`, `::1`). Default `false`.
    pub allow_loopback: bool,
    /// Allow private (`10/8`, `172.16/12`, `192.168/16`, `100.64/10`, `fc00::/7`),
    /// link-local (`169.254/16`, `fe80::/10`) and other special-purpose addresses.
    /// Default `false`.
    pub allow_private: bool,
}

impl AddressPolicy {
    /// Why `ip` may not be reached under this policy (`None`: it may).
    pub fn refusal(self, ip: IpAddr) -> Option<&'static str> {
        let class = classify(ip)?;
        let allowed = match class {
            "loopback" => self.allow_loopback,
            _ => self.allow_private,
        };
        (!allowed).then_some(class)
    }

    /// Whether `ip` is non-public but allowed (such hosts keep plain `http`).
    pub(crate) fn allows_non_public(self, ip: IpAddr) -> bool {
        classify(ip).is_some() && self.refusal(ip).is_none()
    }
}

/// The kind of non-public address `ip` is, or `None` for a public one.
fn classify(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (127, ..) => "loopback",
        (10, ..) | (192, 168, _) => "private",
        (172, 16..=31, _) => "private",
        (100, 64..=127, _) => "private (shared address space)",
        (169, 254, _) => "link-local",
        (0, ..) => "unspecified",
        (192, 0, 0) => "special-purpose",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (198, 18..=19, _) => "benchmarking",
        (224..=239, ..) => "multicast",
        (240..=255, ..) => "reserved",
        _ => return None,
    })
}

fn classify_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if ip.is_loopback() {
        return Some("loopback");
    }
    if ip.is_unspecified() {
        return Some("unspecified");
    }
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    let s = ip.segments();
    Some(match s[0] {
        0xfe80..=0xfebf => "link-local",
        0xfc00..=0xfdff | 0xfec0..=0xfeff => "private",
        0xff00..=0xffff => "multicast",
        0x2001 if s[1] == 0x0db8 => "documentation",
        0x0100 if s[1..4] == [0, 0, 0] => "discard-only",
        _ => return None,
    })
}

/// The IPv4 address carried inside an IPv6 one, for the forms that carry one.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = || Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s {
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated)
        [0, 0, 0, 0, 0, 0xffff, ..] | [0, 0, 0, 0, 0, 0, ..] => Some(tail()),
        // 64:ff9b::a.b.c.d (NAT64 well-known prefix)
        [0x64, 0xff9b, 0, 0, 0, 0, ..] => Some(tail()),
        // 2002:AABB:CCDD::/48 (6to4)
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8)),
        _ => None,
    }
}

/// A name whose addresses the policy refuses; the fetch reports it to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BlockedAddress {
    /// The host as written in the URL.
    pub host: String,
    /// The refused address.
    pub ip: IpAddr,
    /// What kind of address it is (`loopback`, `private`, …).
    pub class: &'static str,
}

impl std::fmt::Display for BlockedAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host == self.ip.to_string() || self.host.trim_matches(['[', ']']) == self.ip.to_string() {
            write!(f, "{} is a {} address", self.ip, self.class)
        } else {
            write!(f, "{} resolves to {}, a {} address", self.host, self.ip, self.class)
        }
    }
}

impl std::error::Error for BlockedAddress {}

/// The HTTP client's resolver: the system's lookup, then every address checked against
/// the policy. One refused address refuses the name (a name that mixes public and
/// private addresses is not trusted with either).
#[derive(Debug, Clone, Copy)]
pub(crate) struct GuardedResolver {
    pub policy: AddressPolicy,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if let Some((ip, class)) = addrs.iter().find_map(|a| policy.refusal(a.ip()).map(|c| (a.ip(), c))) {
                return Err(Box::new(BlockedAddress { host, ip, class }) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// The [`BlockedAddress`] somewhere in an error's source chain.
pub(crate) fn find_blocked<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a BlockedAddress> {
    let mut current = Some(err);
    while let Some(e) = current {
        if let Some(blocked) = e.downcast_ref::<BlockedAddress>() {
            return Some(blocked);
        }
        current = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_table() {
        let cases: &[(&str, Option<&str>)] = &[
            ("8.8.8.8", None),
            ("93.184.215.14", None),
            ("127.0.0.1", Some("loopback")),
            ("127.255.0.9", Some("loopback")),
            ("10.1.2.3", Some("private")),
            ("172.16.0.1", Some("private")),
            ("172.31.255.255", Some("private")),
            ("172.32.0.1", None),
            ("192.168.1.1", Some("private")),
            ("100.64.0.1", Some("private (shared address space)")),
            ("169.254.169.254", Some("link-local")),
            ("0.0.0.0", Some("unspecified")),
            ("224.0.0.1", Some("multicast")),
            ("255.255.255.255", Some("reserved")),
            ("::1", Some("loopback")),
            ("::", Some("unspecified")),
            ("::ffff:127.0.0.1", Some("loopback")),
            ("::ffff:10.0.0.1", Some("private")),
            ("::ffff:8.8.8.8", None),
            ("::127.0.0.1", Some("loopback")),
            ("64:ff9b::a9fe:a9fe", Some("link-local")),
            ("2002:c0a8:0101::1", Some("private")),
            ("fe80::1", Some("link-local")),
            ("fd12:3456::1", Some("private")),
            ("fec0::1", Some("private")),
            ("ff02::1", Some("multicast")),
            ("2001:db8::1", Some("documentation")),
            ("2606:4700:4700::1111", None),
        ];
        for (ip, want) in cases {
            let ip: IpAddr = ip.parse().unwrap();
            assert_eq!(classify(ip), *want, "{ip}");
        }
    }

    #[test]
    fn policy_switches() {
        let loopback: IpAddr = "127.0.0.1".parse().unwrap();
        let private: IpAddr = "192.168.0.1".parse().unwrap();
        let only_loopback = AddressPolicy { allow_loopback: true, allow_private: false };
        assert_eq!(only_loopback.refusal(loopback), None);
        assert_eq!(only_loopback.refusal(private), Some("private"));
        let only_private = AddressPolicy { allow_loopback: false, allow_private: true };
        assert_eq!(only_private.refusal(loopback), Some("loopback"));
        assert_eq!(only_private.refusal(private), None);
        assert!(only_private.allows_non_public(private));
        assert!(!only_private.allows_non_public("1.1.1.1".parse().unwrap()));
    }

    #[tokio::test]
    async fn the_resolver_refuses_a_name_that_resolves_to_loopback() {
        let resolver = GuardedResolver { policy: AddressPolicy::default() };
        let err = match resolver.resolve("localhost".parse().unwrap()).await {
            Ok(_) => panic!("localhost must be refused"),
            Err(e) => e,
        };
        let blocked = find_blocked(&*err).unwrap();
        assert_eq!(blocked.class, "loopback");
        assert!(blocked.to_string().starts_with("localhost resolves to "), "{blocked}");
        let open = GuardedResolver { policy: AddressPolicy { allow_loopback: true, allow_private: false } };
        assert!(open.resolve("localhost".parse().unwrap()).await.is_ok());
    }
}
