package io.klink.catalog;

import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/** Writes the catalog's values (maps, collections, strings, numbers, booleans, null) as indented JSON. */
final class Json {

    private Json() {}

    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out, "");
        return out.append('\n').toString();
    }

    private static void write(Object value, StringBuilder out, String indent) {
        if (value instanceof Map<?, ?> map) {
            writeAll(map.entrySet().iterator(), '{', '}', out, indent);
        } else if (value instanceof Collection<?> items) {
            writeAll(items.iterator(), '[', ']', out, indent);
        } else if (value instanceof String text) {
            out.append(quote(text));
        } else if (value == null || value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else {
            throw new IllegalArgumentException("no JSON form for " + value.getClass());
        }
    }

    private static void writeAll(Iterator<?> items, char open, char close, StringBuilder out, String indent) {
        if (!items.hasNext()) {
            out.append(open).append(close);
            return;
        }
        String inner = indent + "  ";
        out.append(open);
        while (items.hasNext()) {
            out.append('\n').append(inner);
            Object item = items.next();
            if (item instanceof Map.Entry<?, ?> e) {
                out.append(quote((String) e.getKey())).append(": ");
                item = e.getValue();
            }
            write(item, out, inner);
            out.append(items.hasNext() ? "," : "");
        }
        out.append('\n').append(indent).append(close);
    }

    private static String quote(String text) {
        StringBuilder q = new StringBuilder("\"");
        for (char ch : text.toCharArray()) {
            switch (ch) {
                case '"' -> q.append("\\\"");
                case '\\' -> q.append("\\\\");
                case '\n' -> q.append("\\n");
                default -> q.append(ch < 0x20 ? String.format("\\u%04x", (int) ch) : String.valueOf(ch));
            }
        }
        return q.append('"').toString();
    }
}
