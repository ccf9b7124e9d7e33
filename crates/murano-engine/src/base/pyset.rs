//! The iteration order of a Python 3.11 `set` of strings under
//! `PYTHONHASHSEED=0` (string hashes by SipHash-1-3 with a zero key, the
//! set's open addressing of `Objects/setobject.c`). Murano initialises an
//! object's properties in the order of such a set
//! (`MuranoObject.initialize`: `names = set(self.type.properties)`), which
//! decides which of two sibling objects of a model is set up first.

/// CPython's `siphash13` with the zero key.
fn siphash13(data: &[u8]) -> u64 {
    let (k0, k1) = (0u64, 0u64);
    let mut v0 = k0 ^ 0x736f_6d65_7073_6575;
    let mut v1 = k1 ^ 0x646f_7261_6e64_6f6d;
    let mut v2 = k0 ^ 0x6c79_6765_6e65_7261;
    let mut v3 = k1 ^ 0x7465_6462_7974_6573;
    let round = |v0: &mut u64, v1: &mut u64, v2: &mut u64, v3: &mut u64| {
        *v0 = v0.wrapping_add(*v1);
        *v2 = v2.wrapping_add(*v3);
        *v1 = v1.rotate_left(13) ^ *v0;
        *v3 = v3.rotate_left(16) ^ *v2;
        *v0 = v0.rotate_left(32);
        *v2 = v2.wrapping_add(*v1);
        *v0 = v0.wrapping_add(*v3);
        *v1 = v1.rotate_left(17) ^ *v2;
        *v3 = v3.rotate_left(21) ^ *v0;
        *v2 = v2.rotate_left(32);
    };
    let b = (data.len() as u64) << 56;
    let mut chunks = data.chunks_exact(8);
    for chunk in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let m = u64::from_le_bytes(w);
        v3 ^= m;
        round(&mut v0, &mut v1, &mut v2, &mut v3);
        v0 ^= m;
    }
    let mut w = [0u8; 8];
    let rest = chunks.remainder();
    w[..rest.len()].copy_from_slice(rest);
    let b = b | u64::from_le_bytes(w);
    v3 ^= b;
    round(&mut v0, &mut v1, &mut v2, &mut v3);
    v0 ^= b;
    v2 ^= 0xff;
    for _ in 0..3 {
        round(&mut v0, &mut v1, &mut v2, &mut v3);
    }
    (v0 ^ v1) ^ (v2 ^ v3)
}

/// `hash(s)` of Python 3.11 with `PYTHONHASHSEED=0`, as the bits of a
/// `Py_hash_t`.
pub(crate) fn str_hash(s: &str) -> u64 {
    if s.is_empty() {
        return 0;
    }
    // The string's internal representation: Latin-1, UCS-2 or UCS-4.
    let max = s.chars().map(u32::from).max().unwrap_or(0);
    let bytes: Vec<u8> = if max <= 0xFF {
        s.chars().map(|c| u32::from(c) as u8).collect()
    } else if max <= 0xFFFF {
        s.chars()
            .flat_map(|c| (u32::from(c) as u16).to_le_bytes())
            .collect()
    } else {
        s.chars().flat_map(|c| u32::from(c).to_le_bytes()).collect()
    };
    let h = siphash13(&bytes);
    if h == u64::MAX {
        // -1 is reserved for errors.
        u64::MAX - 1
    } else {
        h
    }
}

const MIN_SIZE: usize = 8;
const LINEAR_PROBES: usize = 9;
const PERTURB_SHIFT: u32 = 5;

struct Table {
    slots: Vec<Option<(u64, usize)>>,
    fill: usize,
    used: usize,
}

impl Table {
    fn new() -> Table {
        Table {
            slots: vec![None; MIN_SIZE],
            fill: 0,
            used: 0,
        }
    }

    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    fn insert_clean(slots: &mut [Option<(u64, usize)>], hash: u64, item: usize) {
        let mask = slots.len() - 1;
        let mut perturb = hash;
        let mut i = (hash as usize) & mask;
        loop {
            if slots[i].is_none() {
                slots[i] = Some((hash, item));
                return;
            }
            if i + LINEAR_PROBES <= mask {
                for j in 1..=LINEAR_PROBES {
                    if slots[i + j].is_none() {
                        slots[i + j] = Some((hash, item));
                        return;
                    }
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        }
    }

    fn resize(&mut self, min_used: usize) {
        let mut size = MIN_SIZE;
        while size <= min_used {
            size <<= 1;
        }
        let old = std::mem::replace(&mut self.slots, vec![None; size]);
        for (hash, item) in old.into_iter().flatten() {
            Table::insert_clean(&mut self.slots, hash, item);
        }
        self.fill = self.used;
    }

    /// `set_add_entry`; `same(a, b)` tells equal keys.
    fn add(&mut self, hash: u64, item: usize, same: &dyn Fn(usize, usize) -> bool) {
        let mask = self.mask();
        let mut perturb = hash;
        let mut i = (hash as usize) & mask;
        loop {
            let probes = if i + LINEAR_PROBES <= mask {
                LINEAR_PROBES
            } else {
                0
            };
            for j in 0..=probes {
                match self.slots[i + j] {
                    None => {
                        self.slots[i + j] = Some((hash, item));
                        self.fill += 1;
                        self.used += 1;
                        if self.fill * 5 >= mask * 3 {
                            let target = if self.used > 50_000 {
                                self.used * 2
                            } else {
                                self.used * 4
                            };
                            self.resize(target);
                        }
                        return;
                    }
                    Some((h, other)) if h == hash && same(other, item) => return,
                    Some(_) => {}
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        }
    }
}

/// The order Python iterates `s = set(d); s.update(extra)` where `d` is a
/// dict with the first `from_dict` of `names` as keys and `extra` the rest:
/// indexes into `names`.
pub(crate) fn set_order(names: &[&str], from_dict: usize) -> Vec<usize> {
    let mut t = Table::new();
    let same = |a: usize, b: usize| names[a] == names[b];
    let from_dict = from_dict.min(names.len());
    // `set_update_internal` with an exact dict: one resize first.
    if (t.fill + from_dict) * 5 >= t.mask() * 3 {
        t.resize((t.used + from_dict) * 2);
    }
    for (i, name) in names.iter().enumerate() {
        t.add(str_hash(name), i, &same);
    }
    t.slots.into_iter().flatten().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_match_python_3_11_without_randomisation() {
        // PYTHONHASHSEED=0 python3.11 -c "print(hash('abc'))"
        assert_eq!(str_hash("abc") as i64, PY_ABC);
        assert_eq!(str_hash(""), 0);
    }

    // From python3.11 (see the test above).
    const PY_ABC: i64 = -4_594_863_902_769_663_758;

    #[test]
    fn set_order_matches_python() {
        let names = ["name", "instance", "regularNodes", "seedNodes", "port"];
        let order: Vec<&str> = set_order(&names, names.len())
            .into_iter()
            .map(|i| names[i])
            .collect();
        assert_eq!(order, PY_ORDER);
    }

    const PY_ORDER: [&str; 5] = ["name", "regularNodes", "instance", "port", "seedNodes"];

    /// `set(dict.fromkeys(names[:d])); s.update(names[d:])` as python3.11
    /// iterates it (PYTHONHASHSEED=0).
    const PY_SETS: &[(&[&str], usize, &[&str])] = &[
        (
            &[
                "agent",
                "ü",
                "openstackId",
                "userData",
                "joinedNetworks",
                "securityGroups",
                "name",
                "floatingIpAddress",
                "keyname",
                "instance",
                "flavor",
                "instanceAffinityGroup",
                "securityGroupName",
                "sharedIps",
                "seedNodes",
                "image",
                "xxxxxxxxxxxxxxxxxxxx",
                "volumes",
                "日本",
                "blockDevices",
            ],
            6,
            &[
                "blockDevices",
                "agent",
                "日本",
                "openstackId",
                "keyname",
                "volumes",
                "xxxxxxxxxxxxxxxxxxxx",
                "userData",
                "securityGroups",
                "name",
                "instance",
                "floatingIpAddress",
                "ü",
                "seedNodes",
                "securityGroupName",
                "flavor",
                "instanceAffinityGroup",
                "sharedIps",
                "image",
                "joinedNetworks",
            ],
        ),
        (
            &[
                "agent",
                "flavor",
                "availabilityZone",
                "日本",
                "regularNodes",
                "port",
                "blockDevices",
                "floatingIpAddress",
                "joinedNetworks",
                "sharedIps",
                "name",
                "assignFloatingIp",
                "securityGroupName",
                "seedNodes",
            ],
            12,
            &[
                "assignFloatingIp",
                "availabilityZone",
                "blockDevices",
                "agent",
                "name",
                "日本",
                "port",
                "floatingIpAddress",
                "seedNodes",
                "securityGroupName",
                "flavor",
                "regularNodes",
                "sharedIps",
                "joinedNetworks",
            ],
        ),
        (
            &[
                "flavor",
                "xxxxxxxxxxxxxxxxxxxx",
                "networks",
                "ipAddresses",
                "image",
                "sharedIps",
                "instanceAffinityGroup",
            ],
            2,
            &[
                "networks",
                "image",
                "flavor",
                "sharedIps",
                "instanceAffinityGroup",
                "xxxxxxxxxxxxxxxxxxxx",
                "ipAddresses",
            ],
        ),
        (
            &[
                "image",
                "availabilityZone",
                "networks",
                "name",
                "openstackId",
                "assignFloatingIp",
                "flavor",
                "port",
                "agent",
                "regularNodes",
                "ipAddresses",
                "volumes",
                "joinedNetworks",
                "ü",
                "日本",
                "userData",
                "instanceAffinityGroup",
                "blockDevices",
                "instance",
                "securityGroups",
                "xxxxxxxxxxxxxxxxxxxx",
                "sharedIps",
                "seedNodes",
            ],
            22,
            &[
                "assignFloatingIp",
                "networks",
                "agent",
                "blockDevices",
                "日本",
                "openstackId",
                "regularNodes",
                "volumes",
                "xxxxxxxxxxxxxxxxxxxx",
                "ipAddresses",
                "userData",
                "availabilityZone",
                "securityGroups",
                "name",
                "instance",
                "ü",
                "seedNodes",
                "flavor",
                "port",
                "instanceAffinityGroup",
                "sharedIps",
                "image",
                "joinedNetworks",
            ],
        ),
        (
            &[
                "flavor",
                "securityGroupName",
                "日本",
                "userData",
                "xxxxxxxxxxxxxxxxxxxx",
                "instance",
                "agent",
                "name",
                "openstackId",
                "availabilityZone",
                "volumes",
            ],
            8,
            &[
                "userData",
                "availabilityZone",
                "agent",
                "name",
                "日本",
                "instance",
                "openstackId",
                "securityGroupName",
                "flavor",
                "volumes",
                "xxxxxxxxxxxxxxxxxxxx",
            ],
        ),
        (
            &[
                "assignFloatingIp",
                "openstackId",
                "availabilityZone",
                "volumes",
                "name",
                "floatingIpAddress",
                "instance",
                "flavor",
                "image",
                "seedNodes",
                "keyname",
                "joinedNetworks",
                "xxxxxxxxxxxxxxxxxxxx",
                "securityGroupName",
                "userData",
                "agent",
                "日本",
                "ipAddresses",
                "port",
                "sharedIps",
                "securityGroups",
                "instanceAffinityGroup",
                "regularNodes",
                "blockDevices",
                "ü",
                "networks",
            ],
            2,
            &[
                "assignFloatingIp",
                "blockDevices",
                "agent",
                "日本",
                "openstackId",
                "userData",
                "availabilityZone",
                "securityGroups",
                "name",
                "floatingIpAddress",
                "joinedNetworks",
                "networks",
                "regularNodes",
                "keyname",
                "volumes",
                "xxxxxxxxxxxxxxxxxxxx",
                "ipAddresses",
                "instance",
                "seedNodes",
                "ü",
                "securityGroupName",
                "flavor",
                "port",
                "instanceAffinityGroup",
                "sharedIps",
                "image",
            ],
        ),
    ];

    #[test]
    fn larger_sets_match_python() {
        for (names, d, expected) in PY_SETS {
            let order: Vec<&str> = set_order(names, *d).into_iter().map(|i| names[i]).collect();
            assert_eq!(&order, expected);
        }
    }
}
