//! The MuranoPL class registry (being written).
