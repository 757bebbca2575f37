#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    castle_fuzz::deal(data, Some(castle::formats::Format::Fcs));
});
