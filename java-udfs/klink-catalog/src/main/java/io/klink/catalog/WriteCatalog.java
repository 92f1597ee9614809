package io.klink.catalog;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code WriteCatalog FILE}: the build's step (process-classes) that writes the catalog klinkctl reads. */
public final class WriteCatalog {

    private WriteCatalog() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: WriteCatalog FILE");
        }
        Path file = Path.of(args[0]);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, Json.write(Catalog.build()), StandardCharsets.UTF_8);
    }
}
