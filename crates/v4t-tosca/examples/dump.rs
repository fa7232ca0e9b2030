fn main() {
    let p = std::env::args().nth(1).unwrap();
    let t = std::fs::read_to_string(p).unwrap();
    match v4t_yaml::parse(&t, v4t_yaml::SourceId(0)) {
        Ok(n) => println!("{}", v4t_yaml::json::to_json(&n)),
        Err(e) => println!("ERR {e}"),
    }
}
