use super::*;

fn doc(html: &str) -> Document {
    Document::parse_str(html)
}

#[test]
fn smoke() {
    let d = doc("<p>a</p><p>b</p>");
    let v = XPath::compile("//p").unwrap().evaluate(&d, NodeId::ROOT).unwrap();
    assert_eq!(v.as_nodes().unwrap().len(), 2);
}
