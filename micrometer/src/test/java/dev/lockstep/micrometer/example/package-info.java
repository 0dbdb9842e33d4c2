/** The README's metrics example, compiled and run by {@code ReadmeMetricsTest}. */
package dev.lockstep.micrometer.example;
