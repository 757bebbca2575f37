#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    castle_fuzz::verify_report(data);
});
