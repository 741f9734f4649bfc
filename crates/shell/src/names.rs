//! Looking a program's name up in a table sorted by name: a binary search among the entries
//! that start with the name's first byte, which the table holds as one run.

/// Where the entries of a sorted table start and end for each first byte of their names.
pub(crate) struct FirstByteRuns([(u16, u16); 256]);

impl FirstByteRuns {
    /// The runs of `names`, which must be sorted (each table's own test keeps them so).
    pub(crate) fn of<'a>(names: impl Iterator<Item = &'a str>) -> Self {
        let mut runs = [(0u16, 0u16); 256];
        for (at, name) in names.enumerate() {
            let at = u16::try_from(at).unwrap_or(u16::MAX);
            let run = &mut runs[usize::from(name.as_bytes().first().copied().unwrap_or(0))];
            if run.1 == 0 {
                *run = (at, at + 1);
            } else {
                run.1 = at + 1;
            }
        }
        Self(runs)
    }

    /// The entry of `table` whose name (`name_of`) is `name`.
    pub(crate) fn find<'t, T>(&self, table: &'t [T], name: &str, name_of: impl Fn(&T) -> &str) -> Option<&'t T> {
        let (start, end) = self.0[usize::from(name.as_bytes().first().copied().unwrap_or(0))];
        let run = table.get(usize::from(start)..usize::from(end))?;
        run.binary_search_by(|entry| name_of(entry).cmp(name)).ok().map(|at| &run[at])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_found_and_nothing_else() {
        let table = ["", "cat", "cp", "git", "grep", "ls", "\u{e9}t\u{e9}"];
        let runs = FirstByteRuns::of(table.iter().copied());
        for name in table {
            assert_eq!(runs.find(&table, name, |n| n), Some(&name), "{name:?}");
        }
        for absent in ["c", "cpp", "gi", "LS", "zzz", "\u{e9}"] {
            assert_eq!(runs.find(&table, absent, |n| n), None, "{absent:?}");
        }
    }
}
