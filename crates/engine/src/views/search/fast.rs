//! A numeric fast field's value for documents read one by one, as a query's matches or a
//! filter's documents are: each segment's column is opened once, when the first document of that
//! segment is read, however many of its documents follow.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use tantivy::columnar::{Column, DynamicColumn, HasAssociatedColumnType};
use tantivy::{DocAddress, Searcher, SegmentOrdinal};

/// The values of the fast field `field`, by document.
pub(super) struct FastValues<'s, T> {
    searcher: &'s Searcher,
    field: &'static str,
    /// Each segment's column, once read; `None` for a segment without the field.
    columns: HashMap<SegmentOrdinal, Option<Column<T>>>,
}

impl<'s, T> FastValues<'s, T>
where
    T: HasAssociatedColumnType,
    DynamicColumn: Into<Option<Column<T>>>,
{
    pub(super) fn new(searcher: &'s Searcher, field: &'static str) -> Self {
        FastValues {
            searcher,
            field,
            columns: HashMap::new(),
        }
    }

    /// The document's first value of the field, if it has one.
    pub(super) fn first(&mut self, addr: DocAddress) -> tantivy::Result<Option<T>> {
        let column = match self.columns.entry(addr.segment_ord) {
            Entry::Occupied(c) => c.into_mut(),
            Entry::Vacant(v) => v.insert(
                self.searcher
                    .segment_reader(addr.segment_ord)
                    .fast_fields()
                    .column_opt(self.field)?,
            ),
        };
        Ok(column.as_ref().and_then(|c| c.first(addr.doc_id)))
    }
}
