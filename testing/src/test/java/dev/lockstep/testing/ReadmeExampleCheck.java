package dev.lockstep.testing;

/** Prints what the README's failing example prints (run by hand; not a test). */
final class ReadmeExampleCheck {
    public static void main(String[] args) throws Exception {
        Launch launch = Launch.run(Class.forName("dev.lockstep.testing.example.BuggyJournalFixture"));
        System.out.println(launch.finished.size() + " seeds, " + launch.failed().size() + " failed");
        if (!launch.failed().isEmpty()) {
            System.out.println(launch.failed().getFirst().name());
            System.out.println(launch.failed().getFirst().failure().getMessage());
        }
    }
}
