//! `HEADER_GROUP_DESC`: which events form groups (`perf record -e '{a,b}'`).

use crate::features::count::count_u32;
use crate::{Encode, EncodeError, Encoder, HeaderString, Output};

/// One group: `{string name, u32 leader_idx, u32 nr_members}`. `leader_idx` is the index of
/// the leader in the file's event list (EVENT_DESC order); the `nr_members` events from the
/// leader on (the leader included) form the group. perf writes only groups of two or more.
///
/// ```
/// use perf_abi::ANON_GROUP_NAME;
/// use perf_encode::features::GroupDesc;
/// let g = GroupDesc { name: ANON_GROUP_NAME, leader_idx: 0, nr_members: 2 };
/// assert_eq!(perf_encode::encoded_len(&g), Ok(68 + 8));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupDesc<'a> {
    /// Group name, or [`perf_abi::ANON_GROUP_NAME`].
    pub name: &'a [u8],
    /// Index of the leader among the file's events.
    pub leader_idx: u32,
    /// Number of events in the group, leader included.
    pub nr_members: u32,
}

impl Encode for GroupDesc<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.encode(&HeaderString::new(self.name))?;
        enc.u32(self.leader_idx)?;
        enc.u32(self.nr_members)
    }
}

/// The GROUP_DESC payload: `u32 nr_groups`, then each [`GroupDesc`], ascending leader index.
///
/// Groups must not overlap and must be listed by ascending leader (perf rebuilds them by
/// walking the events once): otherwise [`EncodeError::Unordered`]. A group of no members is
/// [`EncodeError::InvalidValue`].
///
/// ```
/// use perf_abi::ANON_GROUP_NAME;
/// use perf_encode::features::{GroupDesc, GroupDescFeature};
/// let groups = [GroupDesc { name: ANON_GROUP_NAME, leader_idx: 0, nr_members: 2 }];
/// let v = perf_encode::to_vec(&GroupDescFeature { groups: &groups }, perf_encode::Endian::Little).unwrap();
/// assert_eq!(&v[..4], &[1, 0, 0, 0]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct GroupDescFeature<'a> {
    /// The groups.
    pub groups: &'a [GroupDesc<'a>],
}

impl Encode for GroupDescFeature<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let mut next_free = 0u64;
        for g in self.groups {
            if g.nr_members == 0 {
                return Err(EncodeError::InvalidValue {
                    what: "event group without members",
                });
            }
            if u64::from(g.leader_idx) < next_free {
                return Err(EncodeError::Unordered {
                    what: "event groups (ascending leaders, no overlap)",
                });
            }
            next_free = u64::from(g.leader_idx).saturating_add(u64::from(g.nr_members));
        }
        enc.u32(count_u32("event groups", self.groups.len())?)?;
        self.groups.iter().try_for_each(|g| enc.encode(g))
    }
}
