import FlowBasics
import Testing

/// The one escaper of the `--html` page and the `--junit` report: the same entities for markup, and for XML the
/// characters XML 1.0 cannot hold.
@Suite struct MarkupTextTests {
    @Test func htmlEscapesTheMarkupCharactersAndPassesTheRestThrough() {
        #expect(
            MarkupText.escaped("a<b>&\"c\"'d'\t\r\n\u{1}\u{FFFE}é", for: .html)
                == "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;\t\r\n\u{1}\u{FFFE}é")
    }

    @Test func xmlAlsoReplacesWhatXMLCannotHold() {
        #expect(
            MarkupText.escaped("a<b>&\"c\"'d'\t\r\n\u{1}\u{1F}\u{FFFE}\u{FFFF}é\u{FFFD}", for: .xml)
                == "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;\t&#13;\n\\u{1}\\u{1f}\\u{fffe}\\u{ffff}é\u{FFFD}")
    }

    @Test func textWithNothingToReplaceComesBackAsItIs() {
        #expect(MarkupText.escaped("plain é ✓", for: .html) == "plain é ✓")
        #expect(MarkupText.escaped("plain é ✓", for: .xml) == "plain é ✓")
    }
}
