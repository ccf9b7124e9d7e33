//! Forms generated from a MuranoPL class's JSON schema (the MuranoPL
//! forms design): the fields grouped and ordered by the schema's UI hints
//! (`fields`), and posted values parsed and checked against the schema
//! (`clean`). Shared by the dashboard's pages and `murano forms serve`.

pub mod clean;
pub mod fields;
