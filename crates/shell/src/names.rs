//! Looking a program's name up in a table of unique names: a hash of the name picks a slot of
//! an open-addressed index built once, so a lookup compares the name with one entry in the
//! common case (the content layer looks each command's program up a dozen times a decision).

/// Where each entry of a table sits, by a hash of its name; slots hold entry numbers.
pub(crate) struct NameIndex {
    slots: Box<[u16]>,
}

/// A slot no entry uses.
const EMPTY: u16 = u16::MAX;

impl NameIndex {
    /// The index of `names`, which must be unique (each table's own test keeps them so) and
    /// fewer than [`EMPTY`].
    pub(crate) fn of<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> Self {
        // At most half full, so that a probe for a missing name stops soon.
        let mut slots = vec![EMPTY; (names.len() * 2).next_power_of_two().max(16)].into_boxed_slice();
        let mask = slots.len() - 1;
        for (at, name) in names.enumerate() {
            let mut slot = hash(name) & mask;
            while slots[slot] != EMPTY {
                slot = (slot + 1) & mask;
            }
            slots[slot] = u16::try_from(at).unwrap_or(EMPTY);
        }
        Self { slots }
    }

    /// The entry of `table` whose name (`name_of`) is `name`.
    pub(crate) fn find<'t, T>(&self, table: &'t [T], name: &str, name_of: impl Fn(&T) -> &str) -> Option<&'t T> {
        let mask = self.slots.len() - 1;
        let mut slot = hash(name) & mask;
        loop {
            let entry = table.get(usize::from(self.slots[slot]))?;
            if name_of(entry) == name {
                return Some(entry);
            }
            slot = (slot + 1) & mask;
        }
    }
}

/// FNV-1a over the name's bytes: program names are short, and the tables are ours, so no
/// input can be chosen to collide.
fn hash(name: &str) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in name.as_bytes() {
        h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    // The high bits mix best; fold them into the slot bits.
    (h ^ (h >> 32)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_found_and_nothing_else() {
        let table = ["", "cat", "cp", "git", "grep", "ls", "\u{e9}t\u{e9}"];
        let index = NameIndex::of(table.iter().copied());
        for name in table {
            assert_eq!(index.find(&table, name, |n| n), Some(&name), "{name:?}");
        }
        for absent in ["c", "cpp", "gi", "LS", "zzz", "\u{e9}"] {
            assert_eq!(index.find(&table, absent, |n| n), None, "{absent:?}");
        }
    }

    /// A table that fills its index to half, with names that share slots, finds each of
    /// them and stops at an empty slot for any other.
    #[test]
    fn a_half_full_index_finds_every_name() {
        let table: Vec<String> = (0..500).map(|n| format!("p{n}")).collect();
        let index = NameIndex::of(table.iter().map(String::as_str));
        for name in &table {
            assert_eq!(index.find(&table, name, String::as_str), Some(name));
        }
        for n in 500..1_500 {
            assert_eq!(index.find(&table, &format!("p{n}"), String::as_str), None);
        }
    }
}
