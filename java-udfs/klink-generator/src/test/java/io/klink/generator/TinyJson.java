package io.klink.generator;

import java.util.LinkedHashMap;
import java.util.Map;

/** Test-only parser for a flat JSON object whose values are strings or integers. */
final class TinyJson {

    private final String s;
    private int i;

    private TinyJson(String s) {
        this.s = s;
    }

    /** Values are String or Long; throws IllegalArgumentException on anything else. */
    static Map<String, Object> parseFlatObject(String text) {
        TinyJson p = new TinyJson(text);
        Map<String, Object> out = new LinkedHashMap<>();
        p.expect('{');
        if (p.peek() != '}') {
            do {
                String key = p.string();
                p.expect(':');
                Object value = p.peek() == '"' ? p.string() : p.integer();
                if (out.put(key, value) != null) {
                    throw new IllegalArgumentException("duplicate key " + key);
                }
            } while (p.tryConsume(','));
        }
        p.expect('}');
        if (p.i != text.length()) {
            throw new IllegalArgumentException("trailing text at " + p.i);
        }
        return out;
    }

    private char peek() {
        if (i >= s.length()) {
            throw new IllegalArgumentException("unexpected end");
        }
        return s.charAt(i);
    }

    private void expect(char c) {
        if (peek() != c) {
            throw new IllegalArgumentException("expected '" + c + "' at " + i + " in " + s);
        }
        i++;
    }

    private boolean tryConsume(char c) {
        if (i < s.length() && s.charAt(i) == c) {
            i++;
            return true;
        }
        return false;
    }

    private String string() {
        expect('"');
        int start = i;
        while (peek() != '"') {
            if (peek() == '\\' || peek() < 0x20) {
                throw new IllegalArgumentException("escapes not expected at " + i);
            }
            i++;
        }
        String v = s.substring(start, i);
        i++;
        return v;
    }

    private Long integer() {
        int start = i;
        if (peek() == '-') {
            i++;
        }
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
            i++;
        }
        if (i == start) {
            throw new IllegalArgumentException("expected a value at " + i + " in " + s);
        }
        return Long.parseLong(s.substring(start, i));
    }
}
