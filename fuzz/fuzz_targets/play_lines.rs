#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    castle_fuzz::play_lines(data);
});
