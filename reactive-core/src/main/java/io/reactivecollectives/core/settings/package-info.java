/**
 * The library's settings in one place: each {@link io.reactivecollectives.core.settings.Setting}
 * (system property, environment variable, type, default, description) is declared by its module's
 * {@link io.reactivecollectives.core.settings.SettingsProvider} and listed by
 * {@link io.reactivecollectives.core.settings.SettingsRegistry}, which also warns about unknown
 * {@code rc.*} properties ({@link io.reactivecollectives.core.settings.UnknownSettings}) and feeds the
 * reference page's tables ({@link io.reactivecollectives.core.settings.SettingsReference}).
 */
package io.reactivecollectives.core.settings;
