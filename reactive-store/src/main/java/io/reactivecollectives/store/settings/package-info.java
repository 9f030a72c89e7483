/**
 * Internal: the store's settings ({@link io.reactivecollectives.store.settings.StoreSettings}), found
 * by core's settings registry as a service. Depends only on core's registry. Not a public API.
 */
package io.reactivecollectives.store.settings;
