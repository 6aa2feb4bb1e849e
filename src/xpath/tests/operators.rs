use super::*;

#[test]
fn arithmetic() {
    on_page("1 + 2 * 3", "7");
    on_page("(1 + 2) * 3", "9");
    on_page("7 - 2 - 1", "4");
    on_page("5 mod -2", "1");
    on_page("-5 mod 2", "-1");
    on_page("5.5 mod 2", "1.5");
    on_page("5 mod 0", "NaN");
    on_page("1 div 0", "Infinity");
    on_page("-1 div 0", "-Infinity");
    on_page("0 div 0", "NaN");
    on_page("1 - -1", "2");
    on_page("- - 2", "2");
    on_page("- - -'2'", "-2");
    on_page("-(2 + 3)", "-5");
    on_page("count(//li) div 4", "0.75");
    on_page("//li[2] * 2", "4");
    on_page("'a' + 1", "NaN");
    on_page("div div div", "NaN");
}

#[test]
fn scalar_comparisons() {
    on_page("'1' = 1", "true");
    on_page("'abc' < 'abd'", "false");
    on_page("2 > 1 = true()", "true");
    on_page("1 < 2 < 3", "true");
    on_page("3 > 2 > 1", "false");
    on_page("'1.0' = 1", "true");
    on_page("true() = 1", "true");
    on_page("false() = ''", "true");
    on_page("'a' != 'a '", "true");
    on_page("0 = -0", "true");
    on_page("(0 div 0) = (0 div 0)", "false");
    on_page("(0 div 0) != (0 div 0)", "true");
}

#[test]
fn node_set_comparisons() {
    on_page("//li = 2", "true");
    on_page("//li != 2", "true");
    on_page("//li = '4'", "false");
    on_page("//li > 2", "true");
    on_page("//li > 3", "false");
    on_page("2 < //li", "true");
    on_page("//li = //p", "false");
    on_page("//li = //li", "true");
    on_page("//li != //li", "true");
    on_page("//li[1] != //li[1]", "false");
    on_page("//nothing != //li", "false");
    on_page("//li < //li", "true");
    on_page("//li[3] < //li[1]", "false");
    on_page("//li = true()", "true");
    on_page("//nothing = false()", "true");
    on_page("//div/@class = 'a  b'", "true");
    on_page("//div/@class != 'a  b'", "false");
    on_page("//p/@class != 'y'", "true");
    on_page("count(//p[@class != 'x'])", "0");
    on_page("count(//*[@class = 'x'])", "1");
    on_page("'x' = //p/@class", "true");
    on_page("//p[text() = 'one']", "[/html/body/div/p[1]]");
}

#[test]
fn logic_and_unions() {
    on_page("1 = 1 or 1 div 0", "true");
    on_page("1 = 2 and 1", "false");
    on_page("count(//li | //li | //ul)", "4");
    on_page(
        "//li[2] | //li[1]",
        "[/html/body/ul/li[1], /html/body/ul/li[2]]",
    );
    on_page("count(//li[.=2] | //li[.=2]/self::*)", "1");
    on_page("//div/@id | //div", "[/html/body/div, /html/body/div/@id]");
}

#[test]
fn class_token_and_attribute_fast_paths_agree_with_the_general_forms() {
    let html = "<p class='a b'>1</p><p class=' b\ta '>2</p><p class='ab'>3</p><p>4</p><p class='b c'>5</p>";
    let token = "//p[contains(concat(' ', normalize-space(@class), ' '), ' a ')]";
    check(html, token, "[/html/body/p[1], /html/body/p[2]]");
    check(
        html,
        "//p[contains(concat(' ', normalize-space(string(@class)), ' '), ' a ')]",
        "[/html/body/p[1], /html/body/p[2]]",
    );
    check(
        html,
        "//p[contains(concat(' ', normalize-space(@class), ' '), ' a b ')]",
        "[/html/body/p[1]]",
    );
    check(html, "//p[@class='ab']", "[/html/body/p[3]]");
    check(html, "//p['ab'=@class]", "[/html/body/p[3]]");
    check(html, "count(//p[@class!='ab'])", "3");
    check(html, "count(//p[not(@class='ab')])", "4");
    check(html, "count(//p[@nothing='ab'])", "0");
}
