//! Ask the local model one question: `cargo run --release --example ask -- "question"`.
use adfarm_llm::{ChatRequest, Message, Provider};
use adfarm_models::{assets, LocalLlm};

fn main() {
    let home = std::env::var_os("ADFARM_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(assets::default_home);
    let llm = LocalLlm::load(&assets::generator_gguf(&home)).expect("load");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    for q in std::env::args().skip(1) {
        let mut req = ChatRequest::new(vec![Message::user(q.clone())]);
        req.max_tokens = 60;
        let c = rt.block_on(llm.chat(&req)).expect("chat");
        println!("Q: {q}\nA: {}\n", c.text);
    }
}
