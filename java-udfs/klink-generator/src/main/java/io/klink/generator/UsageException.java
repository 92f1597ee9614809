package io.klink.generator;

/** A bad command line; the message is printed as one line and the process exits with code 2. */
public final class UsageException extends Exception {
    public UsageException(String message) {
        super(message);
    }
}
